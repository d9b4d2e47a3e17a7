package io.streamsmemory.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.streamsmemory.controlplane.LocalControlPlane;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CRD upgrade docs/upgrade.md gives, run as written over a CRD that Helm installed from an older chart (Helm
 * installs a chart's crds/ once and never upgrades them): the new schema's field arrives, a changed value replaces
 * Helm's, and the CRD stays Established. A plain server-side apply conflicts with Helm's field manager over the
 * changed value, which is why the documented command forces it. On a control plane of its own: the CRD Helm made is
 * thrown away with the plane, where deleting it on the shared plane once outlasted the footprint's 90 s (run T,
 * loaded: its finalizer still running), and the class runs beside the main lane instead of in it.
 */
@OnAControlPlaneOfItsOwn
class CrdUpgradeTest {
    /** The command in docs/upgrade.md, run from the repository's root. */
    static final String[] DOCUMENTED = {"apply", "--server-side", "--force-conflicts", "-k", "crds/"};

    static final Path CRD = Path.of("../../crds/streamsmemorypolicies.streamsmemory.io-v1.yml");
    static final String NAME = "streamsmemorypolicies.streamsmemory.io";
    /** A field the older chart's CRD lacks, and one whose description it words otherwise. */
    static final String NEW_FIELD = "tuning";

    static final String CHANGED_FIELD = "rollout";

    LocalControlPlane controlPlane;
    KubernetesClient client;

    @Test
    void theDocumentedCommandUpgradesTheCrdHelmInstalledWhereAPlainServerSideApplyConflicts(@TempDir Path dir)
            throws IOException {
        Helm helm = Helm.locate(dir.resolve("helm-home"), controlPlane.kubeconfigPath());
        helm.run("install", "older", olderChartWithItsCrd(dir).toString(), "--namespace", "default")
                .orFail("helm install of the older chart");
        try {
            assertThat(specProperties().keySet()).doesNotContain(NEW_FIELD);

            assertThatThrownBy(() -> controlPlane.kubectl(
                            "apply", "--server-side", "-f", CRD.toAbsolutePath().toString()))
                    .as("a server-side apply without --force-conflicts")
                    .hasMessageContaining("conflict");

            String[] documented = DOCUMENTED.clone();
            documented[documented.length - 1] = CRD.getParent().toAbsolutePath().toString();
            controlPlane.kubectl(documented);

            JSONSchemaProps applied =
                    spec(Serialization.unmarshal(Files.readString(CRD), CustomResourceDefinition.class));
            assertThat(specProperties()).containsKey(NEW_FIELD);
            assertThat(specProperties().get(CHANGED_FIELD).getDescription())
                    .isEqualTo(applied.getProperties().get(CHANGED_FIELD).getDescription());
            assertThat(client.apiextensions()
                            .v1()
                            .customResourceDefinitions()
                            .withName(NAME)
                            .get()
                            .getStatus()
                            .getConditions())
                    .anyMatch(c ->
                            c.getType().equals("Established") && c.getStatus().equals("True"));
        } finally {
            helm.run("uninstall", "older", "--namespace", "default").orFail("helm uninstall");
        }
    }

    /** A chart of only crds/: this version's CRD without {@link #NEW_FIELD}, {@link #CHANGED_FIELD} described otherwise. */
    private static Path olderChartWithItsCrd(Path dir) throws IOException {
        CustomResourceDefinition older = Serialization.unmarshal(Files.readString(CRD), CustomResourceDefinition.class);
        JSONSchemaProps spec = spec(older);
        assertThat(spec.getProperties()).containsKeys(NEW_FIELD, CHANGED_FIELD);
        spec.getProperties().remove(NEW_FIELD);
        spec.getProperties().get(CHANGED_FIELD).setDescription("an older release's words");
        Path chart = Files.createDirectories(dir.resolve("older-chart/crds"));
        Files.writeString(chart.resolve(CRD.getFileName()), Serialization.asYaml(older));
        Files.writeString(chart.getParent().resolve("Chart.yaml"), "apiVersion: v2\nname: older\nversion: 0.0.1\n");
        return chart.getParent();
    }

    private java.util.Map<String, JSONSchemaProps> specProperties() {
        return spec(client.apiextensions()
                        .v1()
                        .customResourceDefinitions()
                        .withName(NAME)
                        .get())
                .getProperties();
    }

    private static JSONSchemaProps spec(CustomResourceDefinition crd) {
        return crd.getSpec()
                .getVersions()
                .get(0)
                .getSchema()
                .getOpenAPIV3Schema()
                .getProperties()
                .get("spec");
    }
}

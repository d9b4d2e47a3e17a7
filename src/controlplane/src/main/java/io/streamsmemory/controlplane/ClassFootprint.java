package io.streamsmemory.controlplane;

import io.fabric8.kubernetes.api.model.APIGroup;
import io.fabric8.kubernetes.api.model.APIResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

/**
 * What one test class added to a control plane it shares with other classes: the namespaces it created and the
 * cluster-scoped objects (CRDs, webhook configurations, admission policies, cluster roles and bindings) it left.
 * Taken before the class ({@link #before}) and cleared after it ({@link #clear}), so the next class meets the cluster
 * as the first one did.
 *
 * <p>Namespaces are emptied and removed here rather than by kube-controller-manager's namespace controller, which an
 * API-server-only control plane does not run: a deleted namespace would otherwise stay {@code Terminating} and the
 * next class could not create one of the same name.
 */
final class ClassFootprint {
    /** The cluster-scoped kinds a test class creates and must remove again, as {@code group/version/plural}. */
    private static final List<ResourceDefinitionContext> CLUSTER_SCOPED = List.of(
            clusterScoped("apiextensions.k8s.io", "v1", "customresourcedefinitions", "CustomResourceDefinition"),
            clusterScoped(
                    "admissionregistration.k8s.io",
                    "v1",
                    "mutatingwebhookconfigurations",
                    "MutatingWebhookConfiguration"),
            clusterScoped(
                    "admissionregistration.k8s.io",
                    "v1",
                    "validatingwebhookconfigurations",
                    "ValidatingWebhookConfiguration"),
            clusterScoped(
                    "admissionregistration.k8s.io", "v1", "validatingadmissionpolicies", "ValidatingAdmissionPolicy"),
            clusterScoped(
                    "admissionregistration.k8s.io",
                    "v1",
                    "validatingadmissionpolicybindings",
                    "ValidatingAdmissionPolicyBinding"),
            clusterScoped("rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole"),
            clusterScoped("rbac.authorization.k8s.io", "v1", "clusterrolebindings", "ClusterRoleBinding"));

    private static final Duration GONE_WITHIN = Duration.ofSeconds(90);

    private final Set<String> namespaces;
    private final Set<String> clusterObjects;

    private ClassFootprint(Set<String> namespaces, Set<String> clusterObjects) {
        this.namespaces = namespaces;
        this.clusterObjects = clusterObjects;
    }

    /** What the cluster holds before a class runs. */
    static ClassFootprint before(KubernetesClient client) {
        return new ClassFootprint(namespaces(client), clusterObjects(client));
    }

    /**
     * Removes the namespaces created since {@link #before} (and all they hold) and the cluster-scoped objects added
     * since; returns those the class should have removed itself, as {@code Kind/name}: every one but a
     * CustomResourceDefinition. A CRD is schema, not behaviour (webhooks, RBAC and admission policies change what the
     * next class meets): classes install the project's CRD as their first fixture, and removing it here, with every
     * object of its kind, is what lets the next class start from the same empty cluster.
     */
    List<String> clear(LocalControlPlane controlPlane) {
        KubernetesClient client = controlPlane.adminClient();
        List<String> created = new ArrayList<>(namespaces(client));
        created.removeAll(namespaces);
        removeNamespaces(controlPlane, created);
        List<String> left = new ArrayList<>();
        List<Runnable> awaits = new ArrayList<>();
        for (ResourceDefinitionContext kind : CLUSTER_SCOPED) {
            for (GenericKubernetesResource object : list(client, kind)) {
                String key = key(kind, object);
                if (!clusterObjects.contains(key)) {
                    if (!kind.getKind().equals("CustomResourceDefinition")) {
                        left.add(key);
                    }
                    var resource = client.genericKubernetesResources(kind)
                            .withName(object.getMetadata().getName());
                    resource.delete();
                    awaits.add(() -> awaitGone(key, () -> resource.get() != null));
                }
            }
        }
        created.forEach(ns -> awaitGone(
                "namespace " + ns, () -> client.namespaces().withName(ns).get() != null));
        awaits.forEach(Runnable::run);
        return left;
    }

    private static Set<String> namespaces(KubernetesClient client) {
        return client.namespaces().list().getItems().stream()
                .map(ns -> ns.getMetadata().getName())
                .collect(Collectors.toCollection(TreeSet::new));
    }

    private static Set<String> clusterObjects(KubernetesClient client) {
        Set<String> keys = new HashSet<>();
        for (ResourceDefinitionContext kind : CLUSTER_SCOPED) {
            list(client, kind).forEach(object -> keys.add(key(kind, object)));
        }
        return keys;
    }

    private static List<GenericKubernetesResource> list(KubernetesClient client, ResourceDefinitionContext kind) {
        try {
            return client.genericKubernetesResources(kind).list().getItems();
        } catch (KubernetesClientException e) {
            if (e.getCode() == 404) {
                return List.of(); // a kind this Kubernetes version does not serve
            }
            throw e;
        }
    }

    private static String key(ResourceDefinitionContext kind, HasMetadata object) {
        return kind.getKind() + "/" + object.getMetadata().getName();
    }

    /**
     * Deletes the namespaces, their pods first without a grace period (a real node's containers would otherwise have
     * 30 s to stop). Without kube-controller-manager, empties them as its namespace controller would (every namespaced
     * kind the API server lists, finalizers removed) and finalizes them.
     */
    private static void removeNamespaces(LocalControlPlane controlPlane, List<String> created) {
        if (created.isEmpty()) {
            return;
        }
        // A deletecollection of thousands of objects (StatusOf3000WorkloadsTest's) takes longer than a client's
        // default 10 s request timeout.
        try (KubernetesClient client = new KubernetesClientBuilder()
                .withConfig(new ConfigBuilder(controlPlane.adminClient().getConfiguration())
                        .withRequestTimeout((int) GONE_WITHIN.toMillis())
                        .build())
                .build()) {
            removeNamespaces(controlPlane, client, created);
        }
    }

    private static void removeNamespaces(
            LocalControlPlane controlPlane, KubernetesClient client, List<String> created) {
        created.forEach(ns -> client.pods().inNamespace(ns).withGracePeriod(0).delete());
        boolean namespaceController = controlPlane.options().controllerManager()
                || controlPlane.options().realNode();
        List<ResourceDefinitionContext> kinds = namespaceController ? List.of() : namespacedKinds(client);
        for (String namespace : created) {
            kinds.forEach(kind -> empty(client, kind, namespace));
            client.namespaces().withName(namespace).delete();
            if (!namespaceController) {
                finalize(controlPlane, namespace);
            }
        }
    }

    private static void empty(KubernetesClient client, ResourceDefinitionContext kind, String namespace) {
        try {
            var objects = client.genericKubernetesResources(kind).inNamespace(namespace);
            objects.withGracePeriod(0).delete();
            // What a finalizer holds back (a policy of an older operator version, say) goes without it.
            for (GenericKubernetesResource held : objects.list().getItems()) {
                if (!held.getMetadata().getFinalizers().isEmpty()) {
                    objects.withName(held.getMetadata().getName()).edit(o -> {
                        o.getMetadata().setFinalizers(List.of());
                        return o;
                    });
                }
            }
        } catch (KubernetesClientException e) {
            if (e.getCode() != 404 && e.getCode() != 405 && e.getCode() != 409) {
                throw e;
            }
        }
    }

    /** What the namespace controller does last: drop the {@code kubernetes} finalizer so the namespace goes. */
    private static void finalize(LocalControlPlane controlPlane, String namespace) {
        var ns = controlPlane.adminClient().namespaces().withName(namespace).get();
        if (ns == null) {
            return;
        }
        ns.getSpec().setFinalizers(List.of());
        try {
            Path file = Files.createTempFile("namespace-", ".json");
            try {
                Files.writeString(file, Serialization.asJson(ns));
                controlPlane.kubectl(
                        "replace", "--raw", "/api/v1/namespaces/" + namespace + "/finalize", "-f", file.toString());
            } finally {
                Files.deleteIfExists(file);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void awaitGone(String what, BooleanSupplier present) {
        long deadline = System.nanoTime() + GONE_WITHIN.toNanos();
        while (present.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        what + " still there " + GONE_WITHIN.toSeconds() + " s after its deletion");
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        }
    }

    /** Every namespaced kind the API server serves that can be listed and deleted. */
    private static List<ResourceDefinitionContext> namespacedKinds(KubernetesClient client) {
        List<String> groupVersions = new ArrayList<>();
        groupVersions.add("v1");
        for (APIGroup group : client.getApiGroups().getGroups()) {
            groupVersions.add(group.getPreferredVersion().getGroupVersion());
        }
        List<ResourceDefinitionContext> kinds = new ArrayList<>();
        for (String groupVersion : groupVersions) {
            String group = groupVersion.contains("/") ? groupVersion.substring(0, groupVersion.indexOf('/')) : "";
            String version = groupVersion.substring(groupVersion.indexOf('/') + 1);
            for (APIResource r : client.getApiResources(groupVersion).getResources()) {
                if (Boolean.TRUE.equals(r.getNamespaced())
                        && !r.getName().contains("/")
                        && r.getVerbs().containsAll(List.of("list", "delete"))
                        // Events go with the namespace; there are many and nothing holds them.
                        && !r.getKind().equals("Event")) {
                    kinds.add(new ResourceDefinitionContext.Builder()
                            .withGroup(group)
                            .withVersion(version)
                            .withPlural(r.getName())
                            .withKind(r.getKind())
                            .withNamespaced(true)
                            .build());
                }
            }
        }
        return kinds;
    }

    private static ResourceDefinitionContext clusterScoped(String group, String version, String plural, String kind) {
        return new ResourceDefinitionContext.Builder()
                .withGroup(group)
                .withVersion(version)
                .withPlural(plural)
                .withKind(kind)
                .withNamespaced(false)
                .build();
    }
}

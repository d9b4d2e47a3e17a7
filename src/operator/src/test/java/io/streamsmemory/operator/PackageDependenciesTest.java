package io.streamsmemory.operator;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.streamsmemory.operator.workload.EventRecorder;
import org.junit.jupiter.api.Test;

/**
 * The operator's packages depend on each other as docs/architecture.md draws them: the workload model
 * ({@code workload/}) and the planning ({@code plan/}) are shared, so the webhook ({@code admission/}) and the
 * reconciler ({@code reconcile/}) each read as one concern and never reach into each other; only the Quarkus
 * wiring ({@code app/}) knows them all.
 */
class PackageDependenciesTest {
    private static final String BASE = "io.streamsmemory.operator.";
    private static final JavaClasses OPERATOR = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.streamsmemory.operator");

    @Test
    void eachPackageUsesOnlyTheOnesBelowIt() {
        layeredArchitecture()
                .consideringOnlyDependenciesInAnyPackage("io.streamsmemory.operator..")
                .layer("app")
                .definedBy(BASE + "app..")
                .layer("admission")
                .definedBy(BASE + "admission..")
                .layer("reconcile")
                .definedBy(BASE + "reconcile..")
                .layer("tune")
                .definedBy(BASE + "tune..")
                .layer("plan")
                .definedBy(BASE + "plan..")
                .layer("observe")
                .definedBy(BASE + "observe..")
                .layer("workload")
                .definedBy(BASE + "workload..")
                .layer("api")
                .definedBy(BASE + "api..")
                .whereLayer("app")
                .mayNotBeAccessedByAnyLayer()
                .whereLayer("admission")
                .mayOnlyBeAccessedByLayers("app")
                .whereLayer("reconcile")
                .mayOnlyBeAccessedByLayers("app")
                .whereLayer("tune")
                .mayOnlyBeAccessedByLayers("app", "reconcile")
                .whereLayer("plan")
                .mayOnlyBeAccessedByLayers("app", "admission", "reconcile", "tune")
                .whereLayer("observe")
                .mayOnlyBeAccessedByLayers("app", "reconcile", "plan", "tune")
                .whereLayer("workload")
                .mayOnlyBeAccessedByLayers("app", "admission", "reconcile", "plan", "observe")
                .check(OPERATOR);
    }

    /**
     * Within the reconciler, the classes that decide ({@code reconcile/decide/}) read nothing of the cluster and write
     * nothing: no Kubernetes client, no Event recorder, nothing of those that act ({@code reconcile/act/}) or wire the
     * SDK ({@code reconcile/}). Each rule is then a value a unit test checks without an API server.
     */
    @Test
    void whatDecidesNeitherReadsNorWritesTheCluster() {
        noClasses()
                .that()
                .resideInAPackage(BASE + "reconcile.decide..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(BASE + "reconcile", BASE + "reconcile.act..")
                .orShould()
                .dependOnClassesThat()
                .areAssignableTo(KubernetesClient.class)
                .orShould()
                .dependOnClassesThat()
                .areAssignableTo(EventRecorder.class)
                .check(OPERATOR);
    }

    @Test
    void noPackagesDependOnEachOtherInACycle() {
        slices().matching(BASE + "(*)..").should().beFreeOfCycles().check(OPERATOR);
    }
}

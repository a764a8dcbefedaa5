package dev.backstage.operator.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.testsupport.ControlPlane;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * {@code docs/operator/crd-reference.md} is exactly what {@link CrdReference} renders from {@code crds/}. When the
 * CRDs change, refresh it with {@code -Dbackstage.updateDocs=true} and commit it with them.
 */
class CrdReferenceUpToDateTest {
    @Test
    void givenTheCommittedCrds_thenTheCommittedCrdReferenceIsTheOneRenderedFromThem() throws Exception {
        Path root = ControlPlane.repoRoot();
        String rendered = CrdReference.render(root.resolve("crds"));
        Path page = root.resolve(CrdReference.PAGE);
        if (Boolean.getBoolean("backstage.updateDocs")) {
            Files.writeString(page, rendered);
        }
        assertTrue(Files.exists(page), CrdReference.PAGE + " is missing; generate it with -Dbackstage.updateDocs=true");
        assertEquals(
                rendered,
                Files.readString(page),
                CrdReference.PAGE + " is stale; refresh it with -Dbackstage.updateDocs=true and commit it");
    }

    @Test
    void givenTheCrds_whenRendered_thenTheReferenceListsEveryKindItsFieldsAndItsCelRules() throws Exception {
        String rendered = CrdReference.render(ControlPlane.repoRoot().resolve("crds"));
        for (String expected : new String[] {
            "## BackstageTopology",
            "## BackstageWorkerPool",
            "| `.spec.provider` |",
            "| `.spec.autoscaling.maxReplicas` |",
            "CEL rules:",
            "short `bwp`"
        }) {
            assertTrue(rendered.contains(expected), "the reference has no " + expected);
        }
    }
}

package dev.backstage.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import org.junit.jupiter.api.Test;

class UpgradeViewTest {

    private static Deployment worker(String image, String env, String revision) {
        return new DeploymentBuilder()
                .withNewMetadata()
                .withName("shop-workers")
                .addToAnnotations("deployment.kubernetes.io/revision", revision)
                .endMetadata()
                .withNewSpec()
                .withNewTemplate()
                .withNewMetadata()
                .addToLabels("backstage.dev/pool", "shop-workers")
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("worker")
                .withImage(image)
                .addNewEnv()
                .withName("BACKSTAGE_POOL")
                .withValue(env)
                .endEnv()
                .endContainer()
                .endSpec()
                .endTemplate()
                .endSpec()
                .build();
    }

    @Test
    void givenTheSamePodTemplate_whenCompared_thenThereIsNoDifference_evenWhenTheRevisionDiffers() {
        Deployment before = worker("backstage-sample-tasks:0.1.0", "shop-workers", "1");
        Deployment after = worker("backstage-sample-tasks:0.1.0", "shop-workers", "1");

        assertEquals("", UpgradeView.templateDiff(before, after));
        assertEquals(1, UpgradeView.revision(after));
    }

    @Test
    void givenAChangedEnvValue_whenCompared_thenTheDifferenceNamesTheOldAndTheNewLine() {
        Deployment before = worker("backstage-sample-tasks:0.1.0", "shop-workers", "1");
        Deployment after = worker("backstage-sample-tasks:0.1.0", "shop-workers-2", "2");

        String diff = UpgradeView.templateDiff(before, after);

        var lines = diff.lines().toList();
        assertEquals(2, lines.size(), diff);
        assertTrue(lines.get(0).startsWith("- ") && lines.get(0).contains("value:"), diff);
        assertTrue(lines.get(0).contains("shop-workers") && !lines.get(0).contains("shop-workers-2"), diff);
        assertTrue(lines.get(1).startsWith("+ ") && lines.get(1).contains("shop-workers-2"), diff);
    }
}

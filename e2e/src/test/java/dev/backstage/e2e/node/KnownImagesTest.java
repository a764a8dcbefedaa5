package dev.backstage.e2e.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class KnownImagesTest {

    @Test
    void givenNoRegisteredTag_whenAnOperatorReferenceIsResolved_thenAnyRegistryAndTagRunThisBuild() {
        KnownImages images = KnownImages.fromThisClassPath();

        KnownImages.Image image =
                images.resolve("ghcr.io/acme/backstage-operator:9.9.9").orElseThrow();

        assertEquals("backstage-operator", image.name());
        assertEquals(System.getProperty("java.class.path"), image.classPath());
        assertTrue(images.resolve("backstage-unknown:1").isEmpty());
    }

    @Test
    void givenARegisteredTag_whenResolved_thenThatTagRunsItsOwnBuild_andOtherTagsStillRunThisOne() {
        KnownImages images = KnownImages.fromThisClassPath();
        images.registerOperator("pinned-7e1683a", "/cache/pinned/operator.jar:/cache/pinned/lib/a.jar");

        KnownImages.Image pinned = images.resolve("registry:5000/team/backstage-operator:pinned-7e1683a")
                .orElseThrow();
        KnownImages.Image current = images.resolve("backstage-operator:0.1.0").orElseThrow();

        assertEquals("backstage-operator:pinned-7e1683a", pinned.name());
        assertEquals("/cache/pinned/operator.jar:/cache/pinned/lib/a.jar", pinned.classPath());
        assertEquals("dev.backstage.operator.main.OperatorMain", pinned.mainClass());
        assertEquals(current.portVariables(), pinned.portVariables());
        assertEquals("backstage-operator", current.name());
        assertEquals(
                "backstage-operator",
                images.resolve("backstage-operator").orElseThrow().name());
        assertTrue(
                images.names().contains("backstage-operator:pinned-7e1683a"),
                images.names().toString());
    }

    @Test
    void givenATagWithAColonOrNoClassPath_whenRegistered_thenItIsRefusedWithWhatToChange() {
        KnownImages images = KnownImages.fromThisClassPath();

        IllegalArgumentException colon = assertThrows(
                IllegalArgumentException.class, () -> images.registerOperator("backstage-operator:x", "a.jar"));
        IllegalArgumentException empty =
                assertThrows(IllegalArgumentException.class, () -> images.registerOperator("pinned-1", " "));

        assertTrue(colon.getMessage().contains("plain tag such as pinned-7e1683a"), colon.getMessage());
        assertTrue(empty.getMessage().contains("bin/pinned-operator"), empty.getMessage());
    }

    @Test
    void givenReferences_whenSplit_thenRepositoryAndTagIgnoreRegistryAndDigest() {
        assertEquals("backstage-runtime", KnownImages.repositoryName("r:5000/a/backstage-runtime:1.2@sha256:ab"));
        assertEquals("1.2", KnownImages.tag("r:5000/a/backstage-runtime:1.2@sha256:ab"));
        assertEquals("latest", KnownImages.tag("r:5000/a/backstage-runtime"));
    }
}

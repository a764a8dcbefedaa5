package dev.backstage.operator.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.testsupport.ControlPlane;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The package graphs in {@code docs/architecture.md} are the ones the main sources' imports draw today. After a
 * package change, refresh them with {@code -Dbackstage.updateDocs=true} and commit the page.
 */
class PackageGraphPageUpToDateTest {
    @Test
    void givenTheCurrentSources_thenTheArchitecturePageShowsTheirPackageGraphs() throws Exception {
        Path root = ControlPlane.repoRoot();
        Map<String, Path> modules = new LinkedHashMap<>();
        modules.put("worker-runtime", root.resolve("worker-runtime/src/main/java/dev/backstage/runtime"));
        modules.put("operator", root.resolve("operator/src/main/java/dev/backstage/operator"));
        String section = PackageGraphPage.render(
                modules, Map.of("worker-runtime", "dev.backstage.runtime", "operator", "dev.backstage.operator"));
        Path page = root.resolve(PackageGraphPage.PAGE);
        String expected = PackageGraphPage.splice(Files.readString(page), section);
        if (Boolean.getBoolean("backstage.updateDocs")) {
            Files.writeString(page, expected);
        }
        assertEquals(
                expected,
                Files.readString(page),
                PackageGraphPage.PAGE
                        + "'s package graphs are stale; refresh them with -Dbackstage.updateDocs=true and commit the page");
    }

    @Test
    void givenTheRuntimeSources_whenDrawn_thenTheGraphHasItsLayersAndNoSelfEdges() throws Exception {
        Map<String, java.util.Set<String>> graph = PackageGraphPage.graph(
                ControlPlane.repoRoot().resolve("worker-runtime/src/main/java/dev/backstage/runtime"),
                "dev.backstage.runtime");
        assertTrue(graph.get("api").contains("spi"), "api imports spi: " + graph);
        assertTrue(graph.get("spi").isEmpty(), "spi imports nothing of the runtime: " + graph.get("spi"));
        graph.forEach((from, to) -> assertTrue(!to.contains(from), from + " lists itself"));
    }
}

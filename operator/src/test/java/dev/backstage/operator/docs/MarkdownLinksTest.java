package dev.backstage.operator.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.testsupport.ControlPlane;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every relative link of the README, the other top-level Markdown files, the chart README, every page under
 * {@code docs/} and the benchmark results' index names a file that exists, and so does every benchmark result a page
 * cites in a code span ({@link MarkdownLinks}).
 */
class MarkdownLinksTest {
    @Test
    void givenEveryMarkdownPage_thenEachRelativeLinkAndEachCitedResultExists() throws IOException {
        Path root = ControlPlane.repoRoot();
        Set<String> subjects = subjects(root);
        List<String> pages = new ArrayList<>(ReadmeCommandsTest.defaultFiles(root));
        pages.add(MarkdownLinks.RESULTS + "index.md");
        List<MarkdownLinks.Reference> references = new ArrayList<>();
        for (String page : pages) {
            Path path = root.resolve(page);
            if (Files.exists(path)) {
                references.addAll(MarkdownLinks.references(page, Files.readString(path), subjects));
            }
        }
        assertTrue(
                references.stream().anyMatch(r -> r.path().startsWith(MarkdownLinks.RESULTS))
                        && references.stream().anyMatch(r -> r.path().startsWith("docs/")),
                "no links to docs/ or results found in " + pages + ": the scanner missed them");

        List<MarkdownLinks.Reference> broken = MarkdownLinks.broken(root, references);

        System.out.println(references.size() + " references checked in " + pages.size() + " pages");
        assertEquals(
                List.of(),
                broken,
                broken.size() + " reference(s) name no file; point each at the file as it is named now:\n"
                        + broken.stream().map(Object::toString).collect(Collectors.joining("\n")));
    }

    @Test
    void givenAPageWithLinksCodeAndResultPaths_whenScanned_thenOnlyItsFileReferencesAreFound() {
        String markdown = String.join(
                "\n",
                "See [the docs](../docs/README.md#start), [a site](https://example.org) and [here](#top).",
                "A result: `benchmarks/results/redis-throughput/2026-12-01-after-1.txt`; short: `kafka-latency/quiet-1`.",
                "Not paths: `bin/bench redis 100000`, `benchmarks/results/<subject>/`, `other/thing`, `[x](y.md)`.",
                "```bash",
                "cat [not](a-link.md) `kafka-latency/in-a-fence`",
                "```",
                "![a picture](img/p.png)");

        List<MarkdownLinks.Reference> found =
                MarkdownLinks.references("sub/Page.md", markdown, Set.of("redis-throughput", "kafka-latency"));

        assertEquals(
                List.of(
                        "sub/Page.md:1 ../docs/README.md#start -> docs/README.md",
                        "sub/Page.md:2 benchmarks/results/redis-throughput/2026-12-01-after-1.txt"
                                + " -> benchmarks/results/redis-throughput/2026-12-01-after-1.txt",
                        "sub/Page.md:2 kafka-latency/quiet-1 -> benchmarks/results/kafka-latency/quiet-1",
                        "sub/Page.md:7 img/p.png -> sub/img/p.png"),
                found.stream()
                        .map(r -> r.where() + " " + r.text() + " -> " + r.path())
                        .toList());
    }

    private static Set<String> subjects(Path root) throws IOException {
        try (Stream<Path> dirs = Files.list(root.resolve(MarkdownLinks.RESULTS))) {
            return dirs.filter(Files::isDirectory)
                    .map(p -> p.getFileName().toString())
                    .collect(Collectors.toSet());
        }
    }
}

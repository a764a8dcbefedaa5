package dev.backstage.operator.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.testsupport.ControlPlane;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every package of every module's main sources has a {@code package-info.java} that says what the package is for and
 * where it sits in the graph, as CONTRIBUTING.md asks.
 */
class PackageInfoTest {
    private static final Pattern MODULES = Pattern.compile("<module>([^<]+)</module>");

    @Test
    void givenEveryModulesMainSources_thenEveryPackageHasAPackageInfo() throws IOException {
        Path root = ControlPlane.repoRoot();
        List<Path> packages = mainPackages(root);
        assertTrue(packages.size() > 30, "only " + packages.size() + " main packages found: the scan missed them");

        List<String> missing = packages.stream()
                .filter(dir -> !Files.isRegularFile(dir.resolve("package-info.java")))
                .map(dir -> root.relativize(dir).toString())
                .toList();

        assertEquals(
                List.of(),
                missing,
                missing.size() + " main package(s) have no package-info.java; add one that says what the package is"
                        + " for and what it imports:\n" + String.join("\n", missing));
    }

    /** Every directory under a module's {@code src/main/java} that holds a Java source (the parent pom's modules). */
    private static List<Path> mainPackages(Path root) throws IOException {
        List<Path> packages = new ArrayList<>();
        for (String module : MODULES.matcher(Files.readString(root.resolve("pom.xml")))
                .results()
                .map(m -> m.group(1))
                .toList()) {
            Path sources = root.resolve(module).resolve("src/main/java");
            if (!Files.isDirectory(sources)) {
                continue;
            }
            try (Stream<Path> files = Files.walk(sources)) {
                files.filter(p -> p.toString().endsWith(".java"))
                        .map(Path::getParent)
                        .distinct()
                        .forEach(packages::add);
            }
        }
        return packages.stream().sorted().toList();
    }
}

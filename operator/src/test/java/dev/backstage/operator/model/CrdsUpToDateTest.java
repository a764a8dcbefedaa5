package dev.backstage.operator.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The committed CRDs in {@code crds/} must be exactly what the crd-generator plugin makes from the CR classes in
 * this build, completed by {@link CrdPostProcessor}. When this fails after a model change, refresh them with
 * {@code mvn -pl operator -am test -Dtest=CrdsUpToDateTest -Dbackstage.updateCrds=true} and commit.
 */
class CrdsUpToDateTest {
    private static final Path GENERATED = Paths.get("target", "classes", "META-INF", "fabric8");

    @Test
    void givenTheModelClasses_whenCrdsAreGenerated_thenTheyMatchTheCommittedOnes() throws IOException {
        Path committed = repoRoot().resolve("crds");
        List<String> generatedNames = yamlNames(GENERATED);
        assertFalse(generatedNames.isEmpty(), "no CRDs generated under " + GENERATED.toAbsolutePath());
        if (Boolean.getBoolean("backstage.updateCrds")) {
            Files.createDirectories(committed);
            for (String name : yamlNames(committed)) {
                Files.delete(committed.resolve(name));
            }
            for (String name : generatedNames) {
                Files.writeString(
                        committed.resolve(name), CrdPostProcessor.process(Files.readString(GENERATED.resolve(name))));
            }
        }
        assertEquals(
                generatedNames,
                yamlNames(committed),
                "crds/ holds other files than the build generates; refresh with -Dbackstage.updateCrds=true");
        for (String name : generatedNames) {
            assertEquals(
                    CrdPostProcessor.process(Files.readString(GENERATED.resolve(name))),
                    Files.readString(committed.resolve(name)),
                    "crds/" + name + " is stale; refresh with -Dbackstage.updateCrds=true and commit");
        }
    }

    static Path repoRoot() {
        return Paths.get(System.getProperty("backstage.repoRoot", ".."))
                .toAbsolutePath()
                .normalize();
    }

    private static List<String> yamlNames(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString())
                    .filter(n -> n.endsWith(".yml") || n.endsWith(".yaml"))
                    .sorted()
                    .toList();
        }
    }
}

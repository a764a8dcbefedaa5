package dev.backstage.operator.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The CRD evolution policy (docs/operations/upgrades.md): within a served version a field may be added, never dropped,
 * retyped, newly required or narrowed to fewer allowed values. {@code operator/src/test/resources/crd-history/<commit>/}
 * holds the CRDs of earlier releases verbatim ({@code git show <commit>:crds/<file>}); every one of them is compared with
 * the committed {@code crds/}. A breaking change needs a new version with conversion, not an edit of the released one.
 */
class CrdEvolutionTest {
    private static final Path HISTORY = Path.of("src", "test", "resources", "crd-history");
    private static final String POOLS = "backstageworkerpools.backstage.dev-v1.yml";
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    @Test
    void givenTheCommittedCrds_thenTheyKeepEveryFieldOfEveryEarlierRelease() throws IOException {
        List<Path> released = releasedCrds();
        assertFalse(released.isEmpty(), "no released CRDs under " + HISTORY.toAbsolutePath());
        List<String> findings = new ArrayList<>();
        for (Path old : released) {
            Path current = CrdsUpToDateTest.repoRoot()
                    .resolve("crds")
                    .resolve(old.getFileName().toString());
            if (!Files.exists(current)) {
                findings.add("crds/" + old.getFileName() + " is gone; release "
                        + old.getParent().getFileName() + " had it");
                continue;
            }
            CrdSchemaFields earlier = CrdSchemaFields.parse(Files.readString(old));
            assertTrue(
                    earlier.versions().values().stream().allMatch(fields -> fields.size() > 50),
                    "the snapshot " + old + " has too few fields to be a real CRD");
            CrdSchemaFields.parse(Files.readString(current))
                    .breakingChangesSince(earlier)
                    .forEach(finding -> findings.add(
                            finding + " (since release " + old.getParent().getFileName() + ")"));
        }
        assertEquals(
                List.of(),
                findings,
                "a released CRD version lost what stored objects rely on; keep the field or "
                        + "add a new version with conversion (docs/operations/upgrades.md)");
    }

    @Test
    void givenADroppedField_thenItIsABreakingChange() throws IOException {
        ObjectNode crd = currentPoolCrd();
        ObjectNode spec = poolSpecSchema(crd);
        ((ObjectNode) spec.get("properties")).remove("image");
        assertEquals(
                List.of("backstageworkerpools.backstage.dev v1alpha1 spec.image: dropped (was string)"),
                changesOf(crd));
    }

    @Test
    void givenARetypedField_thenItIsABreakingChange() throws IOException {
        ObjectNode crd = currentPoolCrd();
        ObjectNode concurrency =
                (ObjectNode) poolSpecSchema(crd).get("properties").get("concurrency");
        concurrency.put("type", "string");
        assertEquals(
                List.of("backstageworkerpools.backstage.dev v1alpha1 spec.concurrency: retyped from integer to string"),
                changesOf(crd));
    }

    @Test
    void givenANewlyRequiredFieldOnAnExistingObject_thenItIsABreakingChange() throws IOException {
        ObjectNode crd = currentPoolCrd();
        ObjectNode spec = poolSpecSchema(crd);
        ArrayNode required = spec.has("required") ? (ArrayNode) spec.get("required") : spec.putArray("required");
        required.add("concurrency");
        assertEquals(
                List.of("backstageworkerpools.backstage.dev v1alpha1 spec: newly requires [concurrency]"),
                changesOf(crd));
    }

    @Test
    void givenAnAddedOptionalField_thenItIsAllowed() throws IOException {
        ObjectNode crd = currentPoolCrd();
        ((ObjectNode) poolSpecSchema(crd).get("properties"))
                .putObject("somethingNew")
                .put("type", "string");
        assertEquals(List.of(), changesOf(crd));
    }

    @Test
    void givenAVersionNoLongerServed_thenItIsABreakingChange() throws IOException {
        ObjectNode crd = currentPoolCrd();
        ((ObjectNode) crd.get("spec").get("versions").get(0)).put("served", false);
        assertEquals(
                List.of("backstageworkerpools.backstage.dev v1alpha1: the version is no longer served"),
                changesOf(crd));
    }

    private static List<String> changesOf(ObjectNode changed) throws IOException {
        String current =
                Files.readString(CrdsUpToDateTest.repoRoot().resolve("crds").resolve(POOLS));
        return CrdSchemaFields.parse(YAML.writeValueAsString(changed))
                .breakingChangesSince(CrdSchemaFields.parse(current));
    }

    private static ObjectNode currentPoolCrd() throws IOException {
        return (ObjectNode) YAML.readTree(
                Files.readString(CrdsUpToDateTest.repoRoot().resolve("crds").resolve(POOLS)));
    }

    private static ObjectNode poolSpecSchema(ObjectNode crd) {
        return (ObjectNode) crd.get("spec")
                .get("versions")
                .get(0)
                .get("schema")
                .get("openAPIV3Schema")
                .get("properties")
                .get("spec");
    }

    private static List<Path> releasedCrds() throws IOException {
        if (!Files.isDirectory(HISTORY)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(HISTORY)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".yml"))
                    .sorted()
                    .toList();
        }
    }
}

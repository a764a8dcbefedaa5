package dev.backstage.operator.docs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * Renders {@code docs/operator/crd-reference.md} from the committed CRDs in {@code crds/}: per kind its names and
 * printer columns, then every field of its schema (path, type, default, constraints, description) and every CEL
 * rule with its message. Nothing in the page is written by hand, so it says what the API server enforces.
 */
final class CrdReference {
    static final String PAGE = "docs/operator/crd-reference.md";
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private CrdReference() {}

    /** The page for every {@code *.yml}/{@code *.yaml} in {@code crdDir}, in file-name order. */
    static String render(Path crdDir) throws IOException {
        List<Path> files;
        try (Stream<Path> list = Files.list(crdDir)) {
            files = list.filter(
                            p -> p.toString().endsWith(".yml") || p.toString().endsWith(".yaml"))
                    .sorted()
                    .toList();
        }
        StringBuilder out = new StringBuilder();
        out.append("# CRD reference\n\n")
                .append("<!-- Generated from crds/*.yml by CrdReferenceUpToDateTest; do not edit. Refresh with\n")
                .append("     mvn -B -ntp -pl operator -am test -Dtest=CrdReferenceUpToDateTest ")
                .append("-Dsurefire.failIfNoSpecifiedTests=false -Dbackstage.updateDocs=true -->\n\n")
                .append(
                        "The custom resources of the operator, as the API server validates them: the field constraints ")
                .append(
                        "and the CEL rules below each kind are checked by the API server itself; the admission webhook ")
                .append("adds the cross-object checks in [the operator overview](overview.md).\n");
        for (Path file : files) {
            renderCrd(YAML.readTree(file.toFile()), file.getFileName().toString(), out);
        }
        return out.toString();
    }

    private static void renderCrd(JsonNode crd, String file, StringBuilder out) {
        JsonNode spec = crd.path("spec");
        JsonNode names = spec.path("names");
        out.append("\n## ").append(names.path("kind").asText()).append("\n\n");
        out.append("- API: `").append(spec.path("group").asText()).append('/');
        for (JsonNode version : spec.path("versions")) {
            out.append(version.path("name").asText());
        }
        out.append("`, scope ").append(spec.path("scope").asText()).append('\n');
        out.append("- Names: `")
                .append(names.path("plural").asText())
                .append("`, `")
                .append(names.path("singular").asText())
                .append('`');
        for (JsonNode shortName : names.path("shortNames")) {
            out.append(", short `").append(shortName.asText()).append('`');
        }
        out.append("\n- Source: `crds/").append(file).append("`\n");
        for (JsonNode version : spec.path("versions")) {
            JsonNode columns = version.path("additionalPrinterColumns");
            if (columns.size() > 0) {
                out.append("\n`kubectl get` columns:\n\n| Column | Type | JSONPath |\n|---|---|---|\n");
                for (JsonNode column : columns) {
                    out.append("| ")
                            .append(column.path("name").asText())
                            .append(" | ")
                            .append(column.path("type").asText())
                            .append(" | `")
                            .append(cell(column.path("jsonPath").asText()))
                            .append("` |\n");
                }
            }
            JsonNode schema = version.path("schema").path("openAPIV3Schema");
            String description = schema.path("description").asText("");
            if (!description.isEmpty()) {
                out.append('\n').append(description.strip()).append('\n');
            }
            List<String[]> rows = new ArrayList<>();
            List<String[]> rules = new ArrayList<>();
            walk(schema, "", Set.of(), rows, rules);
            out.append("\n| Field | Type | Default | Constraints | Description |\n|---|---|---|---|---|\n");
            for (String[] row : rows) {
                out.append("| ").append(String.join(" | ", row)).append(" |\n");
            }
            if (!rules.isEmpty()) {
                out.append("\nCEL rules:\n\n| On | Rule | Message |\n|---|---|---|\n");
                for (String[] rule : rules) {
                    out.append("| ").append(String.join(" | ", rule)).append(" |\n");
                }
            }
        }
    }

    private static void walk(
            JsonNode node, String path, Set<String> required, List<String[]> rows, List<String[]> rules) {
        for (JsonNode rule : node.path("x-kubernetes-validations")) {
            rules.add(new String[] {
                code(path.isEmpty() ? "." : path),
                code(rule.path("rule").asText()),
                cell(rule.path("message").asText(""))
            });
        }
        JsonNode properties = node.path("properties");
        Set<String> requiredHere = new TreeSet<>();
        node.path("required").forEach(r -> requiredHere.add(r.asText()));
        for (Iterator<Map.Entry<String, JsonNode>> it = properties.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> field = it.next();
            String childPath = path + "." + field.getKey();
            JsonNode child = field.getValue();
            rows.add(row(childPath, child, requiredHere.contains(field.getKey())));
            walk(child, childPath, requiredHere, rows, rules);
        }
        JsonNode items = node.path("items");
        if (items.isObject()) {
            for (JsonNode rule : items.path("x-kubernetes-validations")) {
                rules.add(new String[] {
                    code(path + "[]"),
                    code(rule.path("rule").asText()),
                    cell(rule.path("message").asText(""))
                });
            }
            if (items.has("properties")) {
                JsonNode copy = items.deepCopy();
                ((com.fasterxml.jackson.databind.node.ObjectNode) copy).remove("x-kubernetes-validations");
                walk(copy, path + "[]", Set.of(), rows, rules);
            }
        }
    }

    private static String[] row(String path, JsonNode field, boolean required) {
        String type = field.path("type")
                .asText(field.path("x-kubernetes-int-or-string").asBoolean() ? "int-or-string" : "");
        if (type.equals("array") && field.path("items").has("type")) {
            type = "array of " + field.path("items").path("type").asText();
        }
        List<String> constraints = new ArrayList<>();
        if (required) {
            constraints.add("required");
        }
        addIf(constraints, field, "enum", "one of ");
        addIf(constraints, field, "minimum", "≥ ");
        addIf(constraints, field, "maximum", "≤ ");
        addIf(constraints, field, "minLength", "length ≥ ");
        addIf(constraints, field, "maxLength", "length ≤ ");
        addIf(constraints, field, "minItems", "items ≥ ");
        addIf(constraints, field, "maxItems", "items ≤ ");
        addIf(constraints, field, "pattern", "pattern ");
        if (field.has("x-kubernetes-list-type")) {
            constraints.add("list-type " + field.path("x-kubernetes-list-type").asText());
        }
        if (field.path("x-kubernetes-preserve-unknown-fields").asBoolean()) {
            constraints.add("any fields");
        }
        if (field.path("nullable").asBoolean()) {
            constraints.add("nullable");
        }
        String defaultValue = field.has("default") ? code(field.get("default").toString()) : "";
        return new String[] {
            code(path),
            type,
            defaultValue,
            cell(String.join(", ", constraints)),
            cell(field.path("description").asText(""))
        };
    }

    private static void addIf(List<String> constraints, JsonNode field, String key, String label) {
        JsonNode value = field.get(key);
        if (value == null) {
            return;
        }
        if (value.isArray()) {
            List<String> values = new ArrayList<>();
            value.forEach(v -> values.add(v.asText()));
            constraints.add(label + "`" + String.join("`, `", values) + "`");
        } else if (value.isTextual()) {
            constraints.add(label + "`" + value.asText() + "`");
        } else {
            constraints.add(label + value);
        }
    }

    /** Text safe in a table cell: one line, pipes escaped. */
    private static String cell(String text) {
        return text.strip().replaceAll("\\s*\n\\s*", " ").replace("|", "\\|");
    }

    private static String code(String text) {
        String cell = cell(text);
        return cell.contains("`") ? "<code>" + cell.replace("<", "&lt;") + "</code>" : "`" + cell + "`";
    }
}

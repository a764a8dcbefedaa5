package dev.backstage.operator.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The field paths of a CRD's schema, per served version, with each field's type, the required names of each object
 * and each field's allowed values: what an object stored under an earlier release relies on. Paths use {@code []} for
 * list items and {@code {}} for map values, e.g. {@code spec.env{}.value} or {@code status.conditions[].type}.
 * {@link #breakingChangesSince} lists what the newer CRD takes away; additions are never listed.
 */
record CrdSchemaFields(String name, Map<String, Map<String, Field>> versions) {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    /** One field: its type (or int-or-string / preserve-unknown-fields), required children, enum values. */
    record Field(String type, Set<String> required, Set<String> allowed) {}

    static CrdSchemaFields parse(String yaml) throws IOException {
        JsonNode crd = YAML.readTree(yaml);
        Map<String, Map<String, Field>> versions = new TreeMap<>();
        for (JsonNode version : crd.path("spec").path("versions")) {
            if (!version.path("served").asBoolean(true)) {
                continue;
            }
            Map<String, Field> fields = new TreeMap<>();
            walk(version.path("schema").path("openAPIV3Schema"), "", fields);
            versions.put(version.path("name").asText(), fields);
        }
        return new CrdSchemaFields(crd.path("metadata").path("name").asText(), versions);
    }

    private static void walk(JsonNode schema, String path, Map<String, Field> fields) {
        fields.put(
                path.isEmpty() ? "." : path,
                new Field(typeOf(schema), texts(schema.path("required")), texts(schema.path("enum"))));
        Iterator<Map.Entry<String, JsonNode>> properties =
                schema.path("properties").fields();
        while (properties.hasNext()) {
            Map.Entry<String, JsonNode> property = properties.next();
            walk(property.getValue(), path.isEmpty() ? property.getKey() : path + "." + property.getKey(), fields);
        }
        if (schema.has("items")) {
            walk(schema.get("items"), path + "[]", fields);
        }
        if (schema.path("additionalProperties").isObject()) {
            walk(schema.get("additionalProperties"), path + "{}", fields);
        }
    }

    private static String typeOf(JsonNode schema) {
        if (schema.path("x-kubernetes-int-or-string").asBoolean(false)) {
            return "int-or-string";
        }
        String type = schema.path("type").asText("");
        if (schema.path("x-kubernetes-preserve-unknown-fields").asBoolean(false)) {
            return type + "+preserve-unknown-fields";
        }
        return type;
    }

    private static Set<String> texts(JsonNode list) {
        Set<String> texts = new TreeSet<>();
        list.forEach(item -> texts.add(item.asText()));
        return texts;
    }

    /**
     * What this CRD takes away from an object valid under {@code earlier}: a served version gone, a field gone or
     * retyped, a field newly required on an object that existed, an allowed value gone. One line per finding.
     */
    List<String> breakingChangesSince(CrdSchemaFields earlier) {
        List<String> findings = new ArrayList<>();
        earlier.versions.forEach((version, earlierFields) -> {
            Map<String, Field> fields = versions.get(version);
            if (fields == null) {
                findings.add(name + " " + version + ": the version is no longer served");
                return;
            }
            earlierFields.forEach((path, was) -> {
                Field now = fields.get(path);
                String at = name + " " + version + " " + path;
                if (now == null) {
                    findings.add(at + ": dropped (was " + was.type() + ")");
                    return;
                }
                if (!now.type().equals(was.type())) {
                    findings.add(at + ": retyped from " + was.type() + " to " + now.type());
                }
                Set<String> newlyRequired = new TreeSet<>(now.required());
                newlyRequired.removeAll(was.required());
                if (!newlyRequired.isEmpty()) {
                    findings.add(at + ": newly requires " + newlyRequired);
                }
                if (!now.allowed().isEmpty()) {
                    Set<String> gone = new TreeSet<>(was.allowed().isEmpty() ? Set.of("<any value>") : was.allowed());
                    gone.removeAll(now.allowed());
                    if (!gone.isEmpty()) {
                        findings.add(at + ": no longer allows " + gone);
                    }
                }
            });
        });
        return findings;
    }
}

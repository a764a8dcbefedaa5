package dev.backstage.operator.status;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * The status fields one writer owns: top-level fields of {@code status}, and the types of the conditions it keeps
 * in the {@code conditions} list it shares with the reconciler. {@link StatusPatcher} refuses a change that touches
 * anything else, so "one writer per status field" is checked on every write instead of promised in a comment.
 *
 * @param fields         top-level status fields, by their JSON names (not {@code conditions})
 * @param conditionTypes condition types this writer sets or removes
 */
public record StatusFields(Set<String> fields, Set<String> conditionTypes) {
    static final String CONDITIONS = "conditions";

    public StatusFields {
        fields = Set.copyOf(fields);
        conditionTypes = Set.copyOf(conditionTypes);
        if (fields.contains(CONDITIONS)) {
            throw new IllegalArgumentException("conditions are shared: name the condition types owned instead");
        }
    }

    /**
     * What changes between {@code before} and {@code after} (two status objects as JSON) outside these fields:
     * top-level field names, and {@code conditions[Type]} for a condition of a type not owned. Empty when the change
     * keeps to its own fields.
     */
    public List<String> foreignChanges(JsonNode before, JsonNode after) {
        Set<String> names = new TreeSet<>();
        before.fieldNames().forEachRemaining(names::add);
        after.fieldNames().forEachRemaining(names::add);
        List<String> foreign = new ArrayList<>();
        for (String name : names) {
            JsonNode old = orNull(before.get(name));
            JsonNode now = orNull(after.get(name));
            if (old.equals(now) || fields.contains(name)) {
                continue;
            }
            if (CONDITIONS.equals(name)) {
                foreign.addAll(foreignConditions(old, now));
            } else {
                foreign.add(name);
            }
        }
        return foreign;
    }

    private List<String> foreignConditions(JsonNode before, JsonNode after) {
        Map<String, JsonNode> old = byType(before);
        Map<String, JsonNode> now = byType(after);
        Set<String> types = new TreeSet<>(old.keySet());
        types.addAll(now.keySet());
        List<String> foreign = new ArrayList<>();
        for (String type : types) {
            if (!conditionTypes.contains(type) && !Objects.equals(old.get(type), now.get(type))) {
                foreign.add(CONDITIONS + "[" + type + "]");
            }
        }
        return foreign;
    }

    private static Map<String, JsonNode> byType(JsonNode conditions) {
        Map<String, JsonNode> byType = new LinkedHashMap<>();
        if (conditions.isArray()) {
            for (Iterator<JsonNode> it = conditions.elements(); it.hasNext(); ) {
                JsonNode condition = it.next();
                byType.put(condition.path("type").asText(), condition);
            }
        }
        return byType;
    }

    private static JsonNode orNull(JsonNode node) {
        return node == null ? NullNode.getInstance() : node;
    }
}

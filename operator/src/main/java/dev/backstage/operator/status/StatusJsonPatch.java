package dev.backstage.operator.status;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.Map;

/**
 * The RFC 6902 JSON patch that turns one status into another, one operation per top-level status field that
 * changed ({@code add} sets a member whether or not it exists; {@code remove} drops one that became absent), led by
 * a {@code replace} of {@code metadata.resourceVersion} with the version the change was computed from.
 *
 * <p>That first operation is the optimistic lock: the API server checks a patched object's resourceVersion against
 * the stored one and answers 409 Conflict when someone wrote in between. It matters because a changed field is
 * written whole, and a field may be shared with a reconciler (a pool's {@code conditions}). (A JSON <em>merge</em> patch would do
 * the same on a real API server, but the fabric8 mock our tests run on merges arrays by appending.)
 */
public final class StatusJsonPatch {
    private StatusJsonPatch() {}

    /** The operations, or an empty array when {@code before} and {@code after} are equal. */
    public static ArrayNode between(JsonNode before, JsonNode after, String resourceVersion) {
        ArrayNode fields = JsonNodeFactory.instance.arrayNode();
        for (Iterator<Map.Entry<String, JsonNode>> it = after.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> field = it.next();
            JsonNode old = before.get(field.getKey());
            if (field.getValue().isNull()) {
                if (old != null && !old.isNull()) {
                    fields.addObject().put("op", "remove").put("path", path(field.getKey()));
                }
            } else if (!field.getValue().equals(old)) {
                fields.addObject()
                        .put("op", "add")
                        .put("path", path(field.getKey()))
                        .set("value", field.getValue());
            }
        }
        for (Iterator<String> it = before.fieldNames(); it.hasNext(); ) {
            String name = it.next();
            if (!after.has(name) && !before.get(name).isNull()) {
                fields.addObject().put("op", "remove").put("path", path(name));
            }
        }
        if (fields.isEmpty()) {
            return fields;
        }
        ArrayNode patch = JsonNodeFactory.instance.arrayNode();
        ObjectNode lock = patch.addObject().put("op", "replace").put("path", "/metadata/resourceVersion");
        lock.put("value", resourceVersion);
        patch.addAll(fields);
        return patch;
    }

    /** RFC 6901 escaping of one path segment. */
    private static String path(String field) {
        return "/status/" + field.replace("~", "~0").replace("/", "~1");
    }
}

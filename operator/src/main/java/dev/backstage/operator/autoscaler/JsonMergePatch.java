package dev.backstage.operator.autoscaler;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.Map;

/**
 * The RFC 7386 JSON merge patch that turns one document into another: changed members with their new value,
 * removed members as {@code null}, nested objects recursively, arrays whole (merge patch cannot address an
 * element). Sending only the difference keeps fields another writer owns out of the request.
 */
final class JsonMergePatch {
    private JsonMergePatch() {}

    /** The patch from {@code before} to {@code after}; both objects. Empty when they are equal. */
    static ObjectNode diff(JsonNode before, JsonNode after) {
        ObjectNode patch = JsonNodeFactory.instance.objectNode();
        for (Iterator<Map.Entry<String, JsonNode>> it = after.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> field = it.next();
            JsonNode old = before.get(field.getKey());
            JsonNode now = field.getValue();
            if (old == null || old.isNull()) {
                if (!now.isNull()) {
                    patch.set(field.getKey(), now);
                }
            } else if (old.isObject() && now.isObject()) {
                ObjectNode nested = diff(old, now);
                if (!nested.isEmpty()) {
                    patch.set(field.getKey(), nested);
                }
            } else if (!old.equals(now)) {
                patch.set(field.getKey(), now);
            }
        }
        for (Iterator<String> it = before.fieldNames(); it.hasNext(); ) {
            String name = it.next();
            if (!after.has(name) && !before.get(name).isNull()) {
                patch.putNull(name);
            }
        }
        return patch;
    }
}

package dev.backstage.runtime.redis;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Turns lettuce's raw XINFO replies (flat key/value lists) into maps. */
final class StreamInfo {
    private StreamInfo() {}

    static List<Map<String, Object>> groups(List<Object> raw) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Object group : raw) {
            if (group instanceof List<?> fields) {
                out.add(toMap(fields));
            } else if (group instanceof Map<?, ?> map) {
                Map<String, Object> copy = new LinkedHashMap<>();
                map.forEach((k, v) -> copy.put(String.valueOf(k), v));
                out.add(copy);
            }
        }
        return out;
    }

    static Map<String, Object> toMap(List<?> fields) {
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i + 1 < fields.size(); i += 2) {
            map.put(String.valueOf(fields.get(i)), fields.get(i + 1));
        }
        return map;
    }

    static Long asLong(Object value) {
        if (value instanceof Number n) {
            return n.longValue();
        }
        if (value == null) {
            return null;
        }
        try {
            return Long.parseLong(value.toString());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** The millisecond part of a stream id. */
    static long idMillis(String id) {
        int dash = id.indexOf('-');
        return Long.parseLong(dash < 0 ? id : id.substring(0, dash));
    }
}

package dev.backstage.operator.testing;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Evaluates the subset of kubectl JSONPath that printer columns use: dotted fields ({@code .status.replicas}) and
 * one equality filter on a list ({@code .status.conditions[?(@.type=="Ready")].status}). Anything else is an
 * error, so a column using more than this gets noticed rather than silently unchecked.
 */
public final class PrinterColumnPath {
    private static final Pattern FILTER =
            Pattern.compile("^([A-Za-z0-9_]+)\\[\\?\\(@\\.([A-Za-z0-9_]+)==\"([^\"]*)\"\\)\\]$");
    private static final Pattern FIELD = Pattern.compile("^[A-Za-z0-9_]+$");

    private PrinterColumnPath() {}

    /** The value at {@code path}, or empty when some step is absent. */
    public static Optional<JsonNode> evaluate(JsonNode root, String path) {
        if (!path.startsWith(".")) {
            throw new IllegalArgumentException("unsupported JSONPath (must start with '.'): " + path);
        }
        JsonNode node = root;
        for (String step : splitSteps(path.substring(1))) {
            if (node == null || node.isMissingNode() || node.isNull()) {
                return Optional.empty();
            }
            Matcher filter = FILTER.matcher(step);
            if (filter.matches()) {
                JsonNode list = node.get(filter.group(1));
                node = null;
                if (list != null && list.isArray()) {
                    for (JsonNode item : list) {
                        JsonNode key = item.get(filter.group(2));
                        if (key != null && filter.group(3).equals(key.asText())) {
                            node = item;
                            break;
                        }
                    }
                }
            } else if (FIELD.matcher(step).matches()) {
                node = node.get(step);
            } else {
                throw new IllegalArgumentException("unsupported JSONPath step '" + step + "' in " + path);
            }
        }
        return node == null || node.isMissingNode() || node.isNull() ? Optional.empty() : Optional.of(node);
    }

    /** Splits on dots outside a filter's brackets. */
    private static java.util.List<String> splitSteps(String path) {
        java.util.List<String> steps = new java.util.ArrayList<>();
        StringBuilder current = new StringBuilder();
        int depth = 0;
        for (char c : path.toCharArray()) {
            if (c == '[') depth++;
            if (c == ']') depth--;
            if (c == '.' && depth == 0) {
                steps.add(current.toString());
                current.setLength(0);
            } else {
                current.append(c);
            }
        }
        steps.add(current.toString());
        return steps;
    }
}

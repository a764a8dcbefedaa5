package dev.backstage.operator.console;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/**
 * A dead letter's payload as the console shows it: pretty-printed JSON when it parses, else the bytes as hex; cut at
 * {@link #MAX_CHARS} characters with a note of how much was left out. The result is plain text, escaped when written.
 */
public final class PayloadText {
    public static final int MAX_CHARS = 4096;
    private static final ObjectMapper JSON = new ObjectMapper();

    private PayloadText() {}

    public static String of(String payload) {
        if (payload == null) {
            return "";
        }
        String shown;
        try {
            JsonNode node = JSON.readTree(payload);
            shown = node == null
                    ? hex(payload)
                    : JSON.writerWithDefaultPrettyPrinter().writeValueAsString(node);
        } catch (java.io.IOException e) {
            shown = hex(payload);
        }
        if (shown.length() <= MAX_CHARS) {
            return shown;
        }
        int cut = MAX_CHARS;
        if (Character.isHighSurrogate(shown.charAt(cut - 1))) {
            cut--; // never split a surrogate pair
        }
        return shown.substring(0, cut) + "\n… (" + (shown.length() - cut) + " more characters)";
    }

    private static String hex(String payload) {
        return "hex: " + HexFormat.ofDelimiter(" ").formatHex(payload.getBytes(StandardCharsets.UTF_8));
    }
}

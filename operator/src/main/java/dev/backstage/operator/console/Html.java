package dev.backstage.operator.console;

/**
 * HTML escaping for every value the console writes into a page: text and attribute values alike, so a payload, an
 * error or a resource name containing markup shows as text.
 */
public final class Html {
    private Html() {}

    /** {@code value} with {@code & < > " '} replaced by entities; null gives the empty string. */
    public static String text(Object value) {
        if (value == null) {
            return "";
        }
        String s = value.toString();
        StringBuilder out = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> out.append("&amp;");
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&#39;");
                default -> out.append(c);
            }
        }
        return out.toString();
    }

    /** {@code value} as a URL query or path component (then HTML-escaped by the caller where it goes into markup). */
    public static String url(String value) {
        return java.net.URLEncoder.encode(value == null ? "" : value, java.nio.charset.StandardCharsets.UTF_8);
    }
}

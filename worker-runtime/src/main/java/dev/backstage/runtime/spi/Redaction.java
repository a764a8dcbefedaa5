package dev.backstage.runtime.spi;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Broker URLs and texts made safe to show, whatever the URL's shape: with or without a scheme, with an unencoded
 * {@code @} in the password, a bootstrap list, a URL that does not parse at all. Everything up to the last
 * {@code @} is user-info and becomes {@code ***}; query parameters that look like secrets are masked too.
 */
public final class Redaction {
    private static final Pattern SECRET_PARAMETER =
            Pattern.compile("(?i)([?&;](?:[a-z_.-]*(?:pass|secret|token|key|auth)[a-z_.-]*)=)[^&;#]*");

    private Redaction() {}

    /** {@code url} with its user-info (up to the last {@code @}) replaced by {@code ***}. */
    public static String url(String url) {
        if (url == null) {
            return "null";
        }
        String masked = url;
        int at = masked.lastIndexOf('@');
        if (at >= 0) {
            int scheme = masked.indexOf("://");
            int start = scheme >= 0 && scheme < at ? scheme + 3 : 0;
            masked = masked.substring(0, start) + "***" + masked.substring(at);
        }
        return SECRET_PARAMETER.matcher(masked).replaceAll("$1***");
    }

    /**
     * {@code text} (an exception's message, a client's error) with every trace of {@code url}'s credentials
     * replaced: the URL itself, its raw and decoded user-info and password.
     */
    public static String text(String text, String url) {
        if (text == null || url == null || url.isEmpty()) {
            return text;
        }
        String safe = text.replace(url, url(url));
        for (String secret : secrets(url)) {
            if (secret.length() >= 1) {
                safe = safe.replace(secret, "***");
            }
        }
        return safe;
    }

    /** The parts of {@code url} that must never be shown, longest first. */
    private static List<String> secrets(String url) {
        List<String> secrets = new ArrayList<>();
        int at = url.lastIndexOf('@');
        if (at >= 0) {
            int scheme = url.indexOf("://");
            String userInfo = url.substring(scheme >= 0 && scheme < at ? scheme + 3 : 0, at);
            secrets.add(userInfo);
            int colon = userInfo.indexOf(':');
            if (colon >= 0 && colon + 1 < userInfo.length()) {
                String password = userInfo.substring(colon + 1);
                secrets.add(password);
                for (String piece : password.split("[@/?#:]")) {
                    if (piece.length() >= 4) {
                        secrets.add(piece); // an unencoded @, / or : leaves the password unclear: mask each part
                    }
                }
                try {
                    secrets.add(URLDecoder.decode(password, StandardCharsets.UTF_8));
                } catch (IllegalArgumentException e) {
                    // not decodable: the raw form is masked already
                }
            }
        }
        Matcher parameter = SECRET_PARAMETER.matcher(url);
        while (parameter.find()) {
            String value = parameter.group().substring(parameter.group(1).length());
            if (!value.isEmpty()) {
                secrets.add(value);
            }
        }
        secrets.sort((a, b) -> b.length() - a.length());
        return secrets;
    }
}

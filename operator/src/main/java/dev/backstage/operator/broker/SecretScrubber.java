package dev.backstage.operator.broker;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Removes secrets from text bound for status, Events and logs. Broker client libraries sometimes echo the URL
 * they were given (with its user-info) or a password; this replaces the known secret values (the whole URL, its
 * user-info, its password) and, as a second line of defence, the user-info of any URL-shaped text.
 */
public final class SecretScrubber {
    static final String MASK = "***";
    private static final Pattern USER_INFO = Pattern.compile("(?<=//)[^/@\\s]+@");

    private final List<String> secrets;

    private SecretScrubber(List<String> secrets) {
        // Longest first, so a URL is masked whole before its password alone would be.
        this.secrets = secrets.stream()
                .filter(s -> s != null && s.length() >= 3)
                .sorted(Comparator.comparingInt(String::length).reversed())
                .distinct()
                .toList();
    }

    /** A scrubber that knows no secret values (still masks user-info in URLs). */
    public static SecretScrubber none() {
        return new SecretScrubber(List.of());
    }

    /** A scrubber for the secret values in these connection URLs. */
    public static SecretScrubber forUrls(String... urls) {
        List<String> values = new ArrayList<>();
        for (String url : urls) {
            if (url == null) {
                continue;
            }
            values.add(url);
            values.addAll(userInfoParts(url));
        }
        return new SecretScrubber(values);
    }

    /**
     * This scrubber plus literal secret values, e.g. a private key's PEM: the whole text and each of its base64 lines
     * (a library may quote one line of a file it could not parse).
     */
    public SecretScrubber and(String... values) {
        List<String> all = new ArrayList<>(secrets);
        for (String value : values) {
            if (value == null) {
                continue;
            }
            all.add(value);
            all.add(value.trim());
            for (String line : value.split("\\R")) {
                if (line.length() >= 16 && !line.startsWith("-----")) {
                    all.add(line.trim());
                }
            }
        }
        return new SecretScrubber(all);
    }

    public String scrub(String text) {
        if (text == null) {
            return null;
        }
        String out = text;
        for (String secret : secrets) {
            out = out.replace(secret, MASK);
        }
        return USER_INFO.matcher(out).replaceAll(MASK + "@");
    }

    private static List<String> userInfoParts(String url) {
        List<String> parts = new ArrayList<>();
        // Kafka bootstrap lists are not URIs; only scheme://user:pass@host forms carry user-info.
        for (String single : url.split(",")) {
            try {
                String userInfo = URI.create(single.trim()).getRawUserInfo();
                if (userInfo == null) {
                    continue;
                }
                parts.add(userInfo);
                parts.add(URLDecoder.decode(userInfo, StandardCharsets.UTF_8));
                int colon = userInfo.indexOf(':');
                if (colon >= 0) {
                    String password = userInfo.substring(colon + 1);
                    parts.add(password);
                    parts.add(URLDecoder.decode(password, StandardCharsets.UTF_8));
                }
            } catch (IllegalArgumentException notAUri) {
                // Not URI-shaped: the whole value is still masked, and so is any user-info pattern.
            }
        }
        return parts;
    }
}

package dev.backstage.operator.broker;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Removes credentials from broker error text before it reaches status, Events or logs. Client libraries may
 * echo the URL they were given, user-info included: the known URL (when it carries user-info or query
 * parameters), its user-info and its password are masked, and so, as a second line of defence, is the
 * user-info of anything URL-shaped. A plain {@code redis://host:6379} stays readable: it helps the reader and
 * holds nothing secret.
 */
public final class CredentialScrubber {
    static final String MASK = "***";
    private static final Pattern USER_INFO = Pattern.compile("(?<=//)[^/@\\s]+@");

    private final List<String> secrets;

    private CredentialScrubber(List<String> secrets) {
        // Longest first, so a URL is masked whole before its password alone would be.
        this.secrets = secrets.stream().filter(s -> s != null && s.length() >= 3)
                .sorted(Comparator.comparingInt(String::length).reversed()).distinct().toList();
    }

    /** Knows no secret value; still masks user-info in URLs. */
    public static CredentialScrubber none() {
        return new CredentialScrubber(List.of());
    }

    public static CredentialScrubber forUrl(String url) {
        List<String> values = new ArrayList<>();
        if (url != null) {
            if (url.contains("@") || url.contains("?")) {
                values.add(url); // credentials inside: the URL as a whole is a secret too
            }
            for (String single : url.split(",")) { // a Kafka bootstrap list is several host:port entries
                try {
                    String userInfo = URI.create(single.trim()).getRawUserInfo();
                    if (userInfo != null) {
                        values.add(userInfo);
                        values.add(URLDecoder.decode(userInfo, StandardCharsets.UTF_8));
                        int colon = userInfo.indexOf(':');
                        if (colon >= 0) {
                            values.add(userInfo.substring(colon + 1));
                            values.add(URLDecoder.decode(userInfo.substring(colon + 1), StandardCharsets.UTF_8));
                        }
                    }
                } catch (IllegalArgumentException notAUri) {
                    // Not URI-shaped: the whole value is still masked, and so is any user-info pattern.
                }
            }
        }
        return new CredentialScrubber(values);
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
}

package dev.backstage.runtime.spi;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A broker URL, parsed strictly and the same way for every provider: {@code scheme://[user[:password]@]host[:port]
 * [,host[:port]…][/path][?query]}. Anything that does not fit is a {@link ConfigurationException} that says what to
 * change; there is no default host, port-less fallback or default user for a URL that could not be read. The
 * messages never quote the URL or any part of it (it may hold a password), only the provider and the rule.
 *
 * <p>Rules: a scheme from the provider's list (Kafka may leave it out, but only without credentials); no spaces or
 * control characters; at most one {@code @}, so an {@code @}, {@code /}, {@code ?} or {@code #} inside the user
 * name or password is percent-encoded ({@code %40}, {@code %2F}, {@code %3F}, {@code %23}); every {@code %} starts
 * a valid {@code %XX} escape of UTF-8; host names of letters, digits, {@code .}, {@code -}, {@code _} (or an IPv6
 * address in brackets); ports are numbers from 1 to 65535.
 *
 * @param scheme   lower case, or empty for a Kafka bootstrap list without one
 * @param username decoded, or null when the URL has no user-info
 * @param password decoded, or null when the URL has none; never log it
 * @param hosts    {@code host:port} entries, at least one
 * @param path     the raw path (with its leading {@code /}), or empty
 */
public record BrokerUrl(String scheme, String username, String password, List<String> hosts, String path) {
    private static final Pattern SCHEME = Pattern.compile("^([A-Za-z][A-Za-z0-9+.-]*)://");
    private static final Pattern HOST = Pattern.compile("[A-Za-z0-9._-]+|\\[[0-9A-Fa-f:.]+\\]");

    /** What a provider accepts. */
    public record Rules(
            String provider,
            Set<String> schemes,
            boolean schemeOptional,
            boolean manyHosts,
            int defaultPort,
            String example) {}

    public static final Rules REDIS =
            new Rules("redis", Set.of("redis", "rediss"), false, false, 6379, "redis://:password@127.0.0.1:6379/0");
    /** Redis Cluster seed nodes or Sentinels: several hosts (the Sentinel master name after '#' is cut off first). */
    public static final Rules REDIS_NODES = new Rules(
            "redis",
            Set.of("redis+cluster", "rediss+cluster", "redis-sentinel", "rediss-sentinel"),
            false,
            true,
            6379,
            "redis+cluster://:password@10.0.0.1:7000,10.0.0.2:7000");

    public static final Rules RABBITMQ = new Rules(
            "rabbitmq", Set.of("amqp", "amqps"), false, false, -1, "amqp://user:password@127.0.0.1:5672/vhost");
    public static final Rules KAFKA = new Rules(
            "kafka",
            Set.of("kafka"),
            true,
            true,
            9092,
            "kafka://user:password@broker-1:9092,broker-2:9092 (or broker-1:9092 without credentials)");

    @Override
    public String toString() {
        return "BrokerUrl[" + scheme + "://" + (username == null ? "" : "***@") + String.join(",", hosts) + path + "]";
    }

    /** {@code raw} under {@code rules}, or a {@link ConfigurationException} naming the rule it breaks. */
    public static BrokerUrl parse(String raw, Rules rules) {
        if (raw == null || raw.isBlank()) {
            throw fail(rules, "is empty");
        }
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (Character.isWhitespace(c) || Character.isISOControl(c) || c > 0x7e) {
                throw fail(
                        rules, "contains a space, a control or a non-ASCII character; remove it or percent-encode it");
            }
        }
        var scheme = SCHEME.matcher(raw);
        String rest;
        String schemeName;
        if (scheme.find()) {
            schemeName = scheme.group(1).toLowerCase(Locale.ROOT);
            if (!rules.schemes().contains(schemeName)) {
                throw fail(
                        rules,
                        "must start with "
                                + String.join(
                                        ":// or ",
                                        rules.schemes().stream().sorted().toList()) + "://");
            }
            rest = raw.substring(scheme.end());
        } else if (rules.schemeOptional() && !raw.contains("@") && !raw.contains("://")) {
            schemeName = "";
            rest = raw;
        } else if (rules.schemeOptional() && raw.contains("@")) {
            throw fail(rules, "has credentials but no kafka:// scheme; write it as kafka://user:password@host:port");
        } else {
            throw fail(
                    rules,
                    "must start with "
                            + String.join(
                                    ":// or ", rules.schemes().stream().sorted().toList()) + "://");
        }
        int end = firstOf(rest, "/?#");
        String authority = rest.substring(0, end);
        String tail = rest.substring(end);
        int at = authority.lastIndexOf('@');
        if (authority.indexOf('@') != at || tail.contains("@")) {
            throw fail(
                    rules,
                    "has an unencoded '@', '/', '?' or '#' in the user name or password; write them as "
                            + "%40, %2F, %3F and %23");
        }
        if (tail.contains("#")) {
            throw fail(rules, "has a '#' fragment; remove it (or write '#' in a password as %23)");
        }
        String username = null;
        String password = null;
        if (at >= 0) {
            String userInfo = authority.substring(0, at);
            int colon = userInfo.indexOf(':');
            username = decode(rules, colon < 0 ? userInfo : userInfo.substring(0, colon));
            password = colon < 0 ? null : decode(rules, userInfo.substring(colon + 1));
        }
        List<String> hosts = hosts(rules, authority.substring(at + 1), schemeName);
        return new BrokerUrl(schemeName, username, password, List.copyOf(hosts), tail);
    }

    private static List<String> hosts(Rules rules, String list, String scheme) {
        if (list.isEmpty()) {
            throw fail(rules, "has no host; write e.g. " + rules.example());
        }
        String[] parts = list.split(",", -1);
        if (parts.length > 1 && !rules.manyHosts()) {
            throw fail(rules, "has more than one host; give one, e.g. " + rules.example());
        }
        List<String> hosts = new ArrayList<>();
        for (String part : parts) {
            int colon = part.startsWith("[") ? part.indexOf(':', part.indexOf(']')) : part.lastIndexOf(':');
            String host = colon < 0 ? part : part.substring(0, colon);
            if (!HOST.matcher(host).matches()) {
                throw fail(
                        rules,
                        "has an empty or invalid host name (letters, digits, '.', '-', '_', or [IPv6]); "
                                + "write e.g. " + rules.example());
            }
            int port = colon < 0 ? defaultPort(rules, scheme) : port(rules, part.substring(colon + 1));
            hosts.add(host + ":" + port);
        }
        return hosts;
    }

    private static int defaultPort(Rules rules, String scheme) {
        return rules.defaultPort() > 0 ? rules.defaultPort() : scheme.endsWith("s") ? 5671 : 5672;
    }

    private static int port(Rules rules, String text) {
        if (!text.matches("[0-9]{1,5}") || Integer.parseInt(text) < 1 || Integer.parseInt(text) > 65535) {
            throw fail(
                    rules,
                    "has a port that is not a number from 1 to 65535 (an unencoded ':' or '@' in the "
                            + "password also does this: write them as %3A and %40)");
        }
        return Integer.parseInt(text);
    }

    private static String decode(Rules rules, String part) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        for (int i = 0; i < part.length(); i++) {
            char c = part.charAt(i);
            if (c != '%') {
                bytes.write(c);
                continue;
            }
            if (i + 2 >= part.length()
                    || Character.digit(part.charAt(i + 1), 16) < 0
                    || Character.digit(part.charAt(i + 2), 16) < 0) {
                throw fail(
                        rules,
                        "has a '%' in the user name or password that does not start a %XX escape; "
                                + "write '%' as %25");
            }
            bytes.write(Character.digit(part.charAt(i + 1), 16) * 16 + Character.digit(part.charAt(i + 2), 16));
            i += 2;
        }
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes.toByteArray()))
                    .toString();
        } catch (CharacterCodingException e) {
            throw fail(rules, "has a user name or password whose %XX escapes are not UTF-8");
        }
    }

    private static int firstOf(String text, String chars) {
        for (int i = 0; i < text.length(); i++) {
            if (chars.indexOf(text.charAt(i)) >= 0) {
                return i;
            }
        }
        return text.length();
    }

    private static ConfigurationException fail(Rules rules, String problem) {
        return new ConfigurationException(
                "the " + rules.provider() + " URL " + problem + " (the URL is not shown: it " + "may hold a password)");
    }
}

package dev.backstage.operator.admission;

import dev.backstage.operator.model.ResourceNames;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Checks the names a resource uses to refer to other objects (a pool's topology, a topology's Secrets) before
 * anything is looked up with them: a name that is not a Kubernetes name is denied with one line saying what a valid
 * name looks like, and never reaches the client (where {@code ../../../api/v1/secrets} would become part of a URL).
 * The CRD schema carries the same patterns; this holds when a request reaches the webhook without it.
 */
final class ReferenceNames {
    /** An object name: an RFC 1123 subdomain of at most 253 characters. */
    private static final Pattern OBJECT_NAME = Pattern.compile(ResourceNames.DNS_SUBDOMAIN);
    /** A key in a Secret or ConfigMap. */
    private static final Pattern DATA_KEY = Pattern.compile("^[-._a-zA-Z0-9]+$");

    private static final int MAX_LENGTH = 253;
    private static final int SHOWN = 64;

    private ReferenceNames() {}

    /**
     * @param field   where the name is, e.g. {@code spec.topologyRef.name}
     * @param what    what it names, e.g. {@code a BackstageTopology in this namespace}
     * @param example a valid name to show
     * @return the one-line denial when {@code name} is not a valid object name
     */
    static Optional<String> objectName(String field, String name, String what, String example) {
        if (name.length() <= MAX_LENGTH && OBJECT_NAME.matcher(name).matches()) {
            return Optional.empty();
        }
        return Optional.of(field + " " + shown(name) + " is not a valid Kubernetes name (lowercase letters, digits,"
                + " '-' and '.', starting and ending with a letter or digit, at most " + MAX_LENGTH + " characters):"
                + " set it to the name of " + what + ", e.g. " + example);
    }

    /** @return the one-line denial when {@code key} is not a valid key of a Secret's data */
    static Optional<String> dataKey(String field, String key) {
        if (key.length() <= MAX_LENGTH
                && DATA_KEY.matcher(key).matches()
                && !key.equals(".")
                && !key.startsWith("..")) {
            return Optional.empty();
        }
        return Optional.of(field + " " + shown(key) + " is not a valid Secret key (letters, digits, '-', '_' and '.',"
                + " not '.' or starting with '..', at most " + MAX_LENGTH + " characters): set it to the key that"
                + " holds the URL, e.g. url");
    }

    /** The name quoted on one line: control characters escaped, long names cut. */
    private static String shown(String name) {
        StringBuilder out = new StringBuilder("'");
        name.codePoints().limit(SHOWN).forEach(c -> {
            if (Character.isISOControl(c)) {
                out.append(String.format("\\u%04x", c));
            } else {
                out.appendCodePoint(c);
            }
        });
        return out.append(name.codePointCount(0, name.length()) > SHOWN ? "…'" : "'")
                .toString();
    }
}

package dev.backstage.operator.console;

import java.net.URI;
import java.util.Locale;
import java.util.Optional;

/**
 * Whether a POST comes from a page of another site, from what the browser says about it: {@code Sec-Fetch-Site}
 * ({@code cross-site} is refused; {@code same-site} too, since another host of the same site is not the console) and
 * {@code Origin}, whose host and port must be the request's {@code Host}. A request without either header (a
 * non-browser client, or an old browser), or with the opaque origin {@code null} (what a browser sends under a
 * {@code no-referrer} policy or from a sandboxed frame), is not decided here and still needs the form's token and
 * the {@code SameSite=Strict} cookie. Pure.
 */
final class CrossSite {
    private CrossSite() {}

    /** The one-line refusal for a POST from another site; empty when nothing says it is one. */
    static Optional<String> refusal(String origin, String host, String fetchSite) {
        String site = fetchSite == null ? "" : fetchSite.trim().toLowerCase(Locale.ROOT);
        if (site.equals("cross-site") || site.equals("same-site")) {
            return Optional.of(refused("the browser says it came from another site (Sec-Fetch-Site: " + site + ")"));
        }
        if (origin == null || origin.isBlank() || "null".equals(origin.trim())) {
            return Optional.empty();
        }
        String authority;
        try {
            authority = URI.create(origin.trim()).getRawAuthority();
        } catch (IllegalArgumentException e) {
            authority = null;
        }
        if (authority == null || host == null || !authority.equalsIgnoreCase(host.trim())) {
            return Optional.of(refused("its Origin is not this console's address"));
        }
        return Optional.empty();
    }

    private static String refused(String why) {
        return "a form from another site is refused: " + why + "; open the console at its own address and submit"
                + " the form there";
    }
}

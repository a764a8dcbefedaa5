package dev.backstage.operator.console;

/**
 * The frame of every console page: the header with the user's name and sign-out, one stylesheet and one script from
 * the console itself (no inline script or style, so the Content-Security-Policy forbids both), and the page's body.
 */
final class Layout {
    private Layout() {}

    /** @param user the signed-in user, or null on the sign-in page; {@code csrf} likewise */
    static String page(String title, String user, String csrf, String notice, String body) {
        StringBuilder out = new StringBuilder(4096 + body.length());
        out.append("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">")
                .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
                .append("<title>")
                .append(Html.text(title))
                .append(" · Backstage console</title>")
                .append("<link rel=\"stylesheet\" href=\"/static/console.css\">")
                .append("<script src=\"/static/console.js\" defer></script></head><body>")
                .append("<header><a class=\"home\" href=\"/\">Backstage console</a>");
        if (user != null) {
            out.append("<nav><a href=\"/\">Overview</a> <a href=\"/schedules\">Schedules</a></nav>")
                    .append("<form method=\"post\" action=\"/signout\" class=\"signout\">")
                    .append(csrfField(csrf))
                    .append("<span class=\"user\">")
                    .append(Html.text(user))
                    .append("</span> ")
                    .append("<button type=\"submit\">Sign out</button></form>");
        }
        out.append("</header>");
        if (notice != null && !notice.isBlank()) {
            out.append("<p class=\"notice\" id=\"notice\">")
                    .append(Html.text(notice))
                    .append("</p>");
        }
        return out.append("<main id=\"live\">")
                .append(body)
                .append("</main></body></html>")
                .toString();
    }

    static String csrfField(String csrf) {
        return "<input type=\"hidden\" name=\"csrf\" value=\"" + Html.text(csrf) + "\">";
    }

    /** A POST form of one button, confirmed by console.js before it is sent. */
    static String action(String path, String csrf, String label, String confirm, String... fields) {
        StringBuilder out = new StringBuilder("<form method=\"post\" class=\"action\" action=\"")
                .append(Html.text(path))
                .append("\" data-confirm=\"")
                .append(Html.text(confirm))
                .append("\">")
                .append(csrfField(csrf));
        for (int i = 0; i + 1 < fields.length; i += 2) {
            out.append("<input type=\"hidden\" name=\"")
                    .append(Html.text(fields[i]))
                    .append("\" value=\"")
                    .append(Html.text(fields[i + 1]))
                    .append("\">");
        }
        return out.append("<button type=\"submit\">")
                .append(Html.text(label))
                .append("</button></form>")
                .toString();
    }

    /** @param formToken the sign-in form's own CSRF token, the same as its cookie's */
    static String signIn(String error, String formToken) {
        String body = "<h1>Sign in</h1><p>Paste a Kubernetes bearer token, e.g. from <code>kubectl create token"
                + " &lt;service-account&gt; -n &lt;namespace&gt;</code>. The console shows and does only what that"
                + " token's RBAC allows.</p><form method=\"post\" action=\"/signin\" class=\"signin\">"
                + "<input type=\"hidden\" name=\"form\" value=\"" + Html.text(formToken) + "\">"
                + "<label for=\"token\">Token</label> <input type=\"password\" id=\"token\" name=\"token\""
                + " autocomplete=\"off\" required> <button type=\"submit\" id=\"signin\">Sign in</button></form>";
        return page("Sign in", null, null, error, body);
    }
}

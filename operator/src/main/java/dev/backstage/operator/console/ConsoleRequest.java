package dev.backstage.operator.console;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.InputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One HTTP request as the console reads it: method, path segments, query and (for a POST) the url-encoded form,
 * at most {@link #MAX_FORM} bytes.
 */
final class ConsoleRequest {
    static final int MAX_FORM = 16 * 1024;

    final String method;
    final List<String> path;
    final Map<String, String> query;
    final Map<String, String> form;
    final String cookie;
    /** The sign-in form's cookie ({@link ConsoleServer#SIGNIN_COOKIE}), or null. */
    final String signInCookie;
    /** What the browser says about where the request comes from (null when it does not say). */
    final String origin;

    final String host;
    final String fetchSite;

    private ConsoleRequest(
            String method,
            List<String> path,
            Map<String, String> query,
            Map<String, String> form,
            String cookie,
            String signInCookie,
            com.sun.net.httpserver.Headers headers) {
        this.method = method;
        this.path = path;
        this.query = query;
        this.form = form;
        this.cookie = cookie;
        this.signInCookie = signInCookie;
        this.origin = headers.getFirst("Origin");
        this.host = headers.getFirst("Host");
        this.fetchSite = headers.getFirst("Sec-Fetch-Site");
    }

    static ConsoleRequest read(HttpExchange exchange, String cookieName, String signInCookieName) throws IOException {
        String rawPath = exchange.getRequestURI().getRawPath();
        List<String> path = java.util.Arrays.stream(rawPath.split("/"))
                .filter(s -> !s.isEmpty())
                .map(s -> URLDecoder.decode(s, StandardCharsets.UTF_8))
                .toList();
        Map<String, String> form = Map.of();
        if ("POST".equals(exchange.getRequestMethod())) {
            try (InputStream in = exchange.getRequestBody()) {
                byte[] body = in.readNBytes(MAX_FORM + 1);
                if (body.length > MAX_FORM) {
                    throw new BadRequest("the form is larger than " + MAX_FORM + " bytes; send a smaller one");
                }
                form = parse(new String(body, StandardCharsets.UTF_8));
            }
        }
        return new ConsoleRequest(
                exchange.getRequestMethod(),
                path,
                parse(exchange.getRequestURI().getRawQuery()),
                form,
                cookie(exchange.getRequestHeaders().get("Cookie"), cookieName),
                cookie(exchange.getRequestHeaders().get("Cookie"), signInCookieName),
                exchange.getRequestHeaders());
    }

    static Map<String, String> parse(String encoded) {
        Map<String, String> out = new HashMap<>();
        if (encoded == null || encoded.isEmpty()) {
            return out;
        }
        for (String pair : encoded.split("&")) {
            int eq = pair.indexOf('=');
            String key = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            out.putIfAbsent(key, value);
        }
        return out;
    }

    static String cookie(List<String> headers, String name) {
        if (headers == null) {
            return null;
        }
        for (String header : headers) {
            for (String part : header.split(";")) {
                String p = part.trim();
                if (p.startsWith(name + "=")) {
                    return p.substring(name.length() + 1);
                }
            }
        }
        return null;
    }

    /** A required form or query field; a clear 400 when it is missing. */
    String required(Map<String, String> fields, String name) {
        String value = fields.get(name);
        if (value == null || value.isBlank()) {
            throw new BadRequest("the request lacks the field '" + name + "'; reload the page and try again");
        }
        return value;
    }

    /** A request the console refuses with 400 and this one-line message. */
    static final class BadRequest extends RuntimeException {
        BadRequest(String message) {
            super(message, null, false, false);
        }
    }
}

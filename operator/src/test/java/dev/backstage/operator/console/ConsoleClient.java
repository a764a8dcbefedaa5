package dev.backstage.operator.console;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A console user over plain HTTP: signs in, keeps the session cookie, reads pages and posts forms with the CSRF token. */
final class ConsoleClient {
    private static final Pattern CSRF = Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"");

    private final HttpClient http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();
    private final String base;
    private String cookie = "";
    private String csrf;

    ConsoleClient(int port) {
        this.base = "http://127.0.0.1:" + port;
    }

    HttpResponse<String> signIn(String token) throws IOException, InterruptedException {
        HttpResponse<String> response = post("/signin", "token=" + URLEncoder.encode(token, StandardCharsets.UTF_8));
        response.headers().firstValue("Set-Cookie").ifPresent(c -> cookie = c.substring(0, c.indexOf(';')));
        return response;
    }

    HttpResponse<String> get(String path) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(base + path))
                .header("Cookie", cookie).GET().build(), HttpResponse.BodyHandlers.ofString());
        Matcher m = CSRF.matcher(response.body());
        if (m.find()) {
            csrf = m.group(1);
        }
        return response;
    }

    /** Posts a form with this session's CSRF token (read from the last page) and the given fields. */
    HttpResponse<String> act(String path, String... fields) throws IOException, InterruptedException {
        StringBuilder form = new StringBuilder("csrf=" + URLEncoder.encode(csrf, StandardCharsets.UTF_8));
        for (int i = 0; i + 1 < fields.length; i += 2) {
            form.append('&').append(fields[i]).append('=').append(URLEncoder.encode(fields[i + 1], StandardCharsets.UTF_8));
        }
        return post(path, form.toString());
    }

    HttpResponse<String> post(String path, String form) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(base + path)).header("Cookie", cookie)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form)).build(), HttpResponse.BodyHandlers.ofString());
    }
}

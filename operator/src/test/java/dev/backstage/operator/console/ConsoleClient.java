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
    private static final Pattern FORM = Pattern.compile("name=\"form\" value=\"([^\"]+)\"");

    private final HttpClient http =
            HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();
    private final String base;
    private String cookie = "";
    private String csrf;

    ConsoleClient(int port) {
        this.base = "http://127.0.0.1:" + port;
    }

    /** Opens the sign-in form (its cookie and form token, as a browser gets them), then posts the token on it. */
    HttpResponse<String> signIn(String token) throws IOException, InterruptedException {
        HttpResponse<String> form = get("/signin");
        String signInCookie = form.headers()
                .firstValue("Set-Cookie")
                .map(c -> c.substring(0, c.indexOf(';')))
                .orElseThrow();
        Matcher m = FORM.matcher(form.body());
        if (!m.find()) {
            throw new AssertionError("no form token on the sign-in page: " + form.body());
        }
        HttpResponse<String> response = http.send(
                HttpRequest.newBuilder(URI.create(base + "/signin"))
                        .header("Cookie", signInCookie)
                        .header("Content-Type", "application/x-www-form-urlencoded")
                        .POST(HttpRequest.BodyPublishers.ofString(
                                "form=" + URLEncoder.encode(m.group(1), StandardCharsets.UTF_8) + "&token="
                                        + URLEncoder.encode(token, StandardCharsets.UTF_8)))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        response.headers().allValues("Set-Cookie").stream()
                .filter(c -> c.startsWith(ConsoleServer.COOKIE + "="))
                .findFirst()
                .ifPresent(c -> cookie = c.substring(0, c.indexOf(';')));
        return response;
    }

    HttpResponse<String> get(String path) throws IOException, InterruptedException {
        HttpRequest.Builder request =
                HttpRequest.newBuilder(URI.create(base + path)).GET();
        if (!cookie.isEmpty()) {
            request.header("Cookie", cookie);
        }
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        Matcher m = CSRF.matcher(response.body());
        if (m.find()) {
            csrf = m.group(1);
        }
        return response;
    }

    /** This session's CSRF token, as the last page carried it. */
    String csrf() {
        return csrf;
    }

    /** Posts a form with this session's CSRF token (read from the last page) and the given fields. */
    HttpResponse<String> act(String path, String... fields) throws IOException, InterruptedException {
        StringBuilder form = new StringBuilder("csrf=" + URLEncoder.encode(csrf, StandardCharsets.UTF_8));
        for (int i = 0; i + 1 < fields.length; i += 2) {
            form.append('&')
                    .append(fields[i])
                    .append('=')
                    .append(URLEncoder.encode(fields[i + 1], StandardCharsets.UTF_8));
        }
        return post(path, form.toString());
    }

    HttpResponse<String> post(String path, String form, String... headers) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path))
                .header("Content-Type", "application/x-www-form-urlencoded");
        if (!cookie.isEmpty()) {
            request.header("Cookie", cookie);
        }
        for (int i = 0; i + 1 < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        return http.send(
                request.POST(HttpRequest.BodyPublishers.ofString(form)).build(), HttpResponse.BodyHandlers.ofString());
    }
}

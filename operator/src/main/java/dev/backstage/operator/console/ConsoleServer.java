package dev.backstage.operator.console;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.backstage.operator.broker.SecretScrubber;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The console's HTTP server (the JDK's {@code com.sun.net.httpserver}, as the operator's health and webhook servers):
 * sign-in, sessions, security headers on every response, the bundled static files, and dispatch to
 * {@link ConsoleRoutes}. Plain HTTP: reach it through {@code kubectl port-forward} or the API server's service proxy,
 * or put TLS in front of it (see docs/operator/console.md).
 */
public final class ConsoleServer implements AutoCloseable {
    static final String COOKIE = "backstage_console";
    /** The sign-in form's CSRF cookie: the form carries the same random value (double submit). */
    static final String SIGNIN_COOKIE = "backstage_signin";
    /** No inline script or style, nothing from another origin, no framing. */
    static final String CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self';"
            + " connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

    private static final Logger LOG = LoggerFactory.getLogger(ConsoleServer.class);

    private final HttpServer server;
    private final ExecutorService executor;
    private final ConsoleAccess access;
    private final Sessions sessions;
    private final ConsoleRoutes routes;

    public ConsoleServer(InetSocketAddress address, ConsoleAccess access, Sessions sessions, ConsoleRoutes routes)
            throws IOException {
        this.access = access;
        this.sessions = sessions;
        this.routes = routes;
        this.server = HttpServer.create(address, 64);
        AtomicInteger n = new AtomicInteger();
        this.executor = Executors.newFixedThreadPool(4, r -> {
            Thread t = new Thread(r, "console-http-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(executor);
        server.createContext("/", this::handle);
    }

    public void start() {
        server.start();
        LOG.info("serving the console on port {}", port());
    }

    public int port() {
        return server.getAddress().getPort();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            ConsoleRequest request;
            try {
                request = ConsoleRequest.read(exchange, COOKIE, SIGNIN_COOKIE);
            } catch (ConsoleRequest.BadRequest e) {
                send(exchange, 400, "text/plain", e.getMessage());
                return;
            }
            String first = request.path.isEmpty() ? "" : request.path.get(0);
            if ("static".equals(first) && request.path.size() == 2 && "GET".equals(request.method)) {
                serveStatic(exchange, request.path.get(1));
                return;
            }
            if ("POST".equals(request.method)) {
                Optional<String> crossSite = CrossSite.refusal(request.origin, request.host, request.fetchSite);
                if (crossSite.isPresent()) {
                    LOG.info("console: POST /{} refused: {}", String.join("/", request.path), crossSite.get());
                    send(exchange, 403, "text/plain", crossSite.get());
                    return;
                }
            }
            if ("favicon.ico".equals(first)) {
                send(exchange, 404, "text/plain", "no favicon"); // not a redirect to /signin: no page of its own
                return;
            }
            if ("signin".equals(first)) {
                signIn(exchange, request);
                return;
            }
            Optional<Session> session = sessions.find(request.cookie);
            if (session.isEmpty()) {
                if ("GET".equals(request.method)) {
                    redirect(exchange, "/signin");
                } else {
                    send(exchange, 401, "text/plain", "not signed in: sign in again at /signin");
                }
                return;
            }
            if ("POST".equals(request.method) && !Sessions.csrfMatches(session.get(), request.form.get("csrf"))) {
                send(
                        exchange,
                        403,
                        "text/plain",
                        "the form's CSRF token does not match your session: reload the" + " page and try again");
                return;
            }
            if ("signout".equals(first) && "POST".equals(request.method)) {
                sessions.close(session.get().id());
                exchange.getResponseHeaders()
                        .add("Set-Cookie", COOKIE + "=; Max-Age=0; Path=/; HttpOnly; SameSite=Strict");
                redirect(exchange, "/signin");
                return;
            }
            ConsoleRoutes.Response response;
            try {
                response = routes.route(session.get(), request);
            } catch (ConsoleRequest.BadRequest e) {
                response = ConsoleRoutes.Response.error(400, e.getMessage());
            } catch (RuntimeException e) {
                // Broker clients may echo a URL: user-info is masked before the line is written.
                LOG.warn(
                        "console: {} /{} failed: {}",
                        request.method,
                        String.join("/", request.path),
                        SecretScrubber.none().scrub(e.toString()));
                response = ConsoleRoutes.Response.error(
                        500,
                        "the console could not do this: " + e.getClass().getSimpleName() + "; see the operator's log");
            }
            if (response.location() != null) {
                redirect(exchange, response.location());
            } else {
                send(exchange, response.status(), "text/html", response.html());
            }
        } catch (RuntimeException e) {
            LOG.warn("console: request failed: {}", SecretScrubber.none().scrub(e.toString()));
        }
    }

    private void signIn(HttpExchange exchange, ConsoleRequest request) throws IOException {
        if (!"POST".equals(request.method)) {
            // A browser may load /signin twice (a favicon redirected here, say): the form it shows and the cookie
            // it holds stay one pair while the cookie is valid.
            signInPage(
                    exchange, 200, null, sessions.validFormToken(request.signInCookie) ? request.signInCookie : null);
            return;
        }
        // Login CSRF: only a form this console served to this browser signs in (its cookie is SameSite=Strict).
        if (!sessions.validFormToken(request.signInCookie)
                || !Sessions.tokensMatch(request.signInCookie, request.form.get("form"))) {
            LOG.info(
                    "console: a sign-in without a valid form token was refused (cookie {}, form field {})",
                    request.signInCookie == null ? "missing" : "present",
                    request.form.get("form") == null ? "missing" : "present");
            signInPage(exchange, 403, "This sign-in form expired or came from another site: sign in here again.");
            return;
        }
        String token = request.form.get("token");
        Optional<ConsoleAccess.User> user;
        try {
            user = access.authenticate(token);
        } catch (RuntimeException e) {
            LOG.warn("console: TokenReview failed: {}", e.getClass().getSimpleName());
            signInPage(exchange, 503, "The API server could not check the token; try again.");
            return;
        }
        if (user.isEmpty()) {
            signInPage(
                    exchange,
                    401,
                    "The API server does not accept this token: create one"
                            + " with kubectl create token <service-account> -n <namespace>.");
            return;
        }
        exchange.getResponseHeaders()
                .add("Set-Cookie", SIGNIN_COOKIE + "=; Max-Age=0; Path=/signin; HttpOnly;" + " SameSite=Strict");
        Session session =
                sessions.open(token.trim(), user.get().name(), user.get().groups());
        LOG.info("console: {} signed in", session.user());
        exchange.getResponseHeaders()
                .add("Set-Cookie", COOKIE + "=" + session.id() + "; Path=/; HttpOnly; SameSite=Strict");
        redirect(exchange, "/");
    }

    /** The sign-in form with a fresh form token, set as its cookie too (sent to /signin only). */
    private void signInPage(HttpExchange exchange, int status, String error) throws IOException {
        signInPage(exchange, status, error, null);
    }

    /** @param current the browser's valid form token to show again, or null for a fresh one */
    private void signInPage(HttpExchange exchange, int status, String error, String current) throws IOException {
        String formToken = current != null ? current : sessions.formToken();
        if (current == null) {
            exchange.getResponseHeaders()
                    .add(
                            "Set-Cookie",
                            SIGNIN_COOKIE + "=" + formToken + "; Max-Age=" + Sessions.FORM_LIFETIME.getSeconds()
                                    + "; Path=/signin; HttpOnly; SameSite=Strict");
        }
        send(exchange, status, "text/html", Layout.signIn(error, formToken));
    }

    private void serveStatic(HttpExchange exchange, String name) throws IOException {
        String type = name.endsWith(".css") ? "text/css" : name.endsWith(".js") ? "text/javascript" : null;
        InputStream in = type == null || !name.matches("[a-z-]+\\.(css|js)")
                ? null
                : ConsoleServer.class.getResourceAsStream(name);
        if (in == null) {
            send(exchange, 404, "text/plain", "no such file");
            return;
        }
        try (in) {
            send(exchange, 200, type, new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
    }

    private static void redirect(HttpExchange exchange, String location) throws IOException {
        headers(exchange, "text/plain");
        exchange.getResponseHeaders().set("Location", location);
        exchange.sendResponseHeaders(303, -1);
    }

    private static void send(HttpExchange exchange, int status, String type, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        headers(exchange, type);
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    private static void headers(HttpExchange exchange, String type) {
        var h = exchange.getResponseHeaders();
        h.set("Content-Type", type + "; charset=utf-8");
        h.set("Content-Security-Policy", CSP);
        h.set("X-Content-Type-Options", "nosniff");
        h.set("X-Frame-Options", "DENY");
        // Same-origin requests keep their Origin (the cross-site check reads it); other sites get no referrer.
        h.set("Referrer-Policy", "same-origin");
        h.set("Cache-Control", "no-store");
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}

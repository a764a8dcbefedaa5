package dev.backstage.operator.admission;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * Where the webhook listens and finds its key pair, from the environment the Helm chart sets.
 *
 * @param tlsDir directory of {@code tls.crt} and {@code tls.key} ({@code WEBHOOK_TLS_DIR}); empty = no webhook
 *               (e.g. running the operator outside a cluster, where the API server could not call it anyway)
 * @param port   HTTPS port ({@code BACKSTAGE_WEBHOOK_PORT}, default 8443)
 */
public record WebhookSettings(Optional<Path> tlsDir, int port) {
    public static WebhookSettings fromEnv(Map<String, String> env) {
        String dir = env.get("WEBHOOK_TLS_DIR");
        String portText = env.getOrDefault("BACKSTAGE_WEBHOOK_PORT", String.valueOf(WebhookServer.DEFAULT_PORT))
                .trim();
        int port;
        try {
            port = Integer.parseInt(portText);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "BACKSTAGE_WEBHOOK_PORT must be a port number, got '" + portText + "'", e);
        }
        return new WebhookSettings(
                dir == null || dir.isBlank() ? Optional.empty() : Optional.of(Path.of(dir.trim())), port);
    }
}

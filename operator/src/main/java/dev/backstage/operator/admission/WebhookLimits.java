package dev.backstage.operator.admission;

import java.time.Duration;
import java.util.Objects;

/**
 * What one caller of the webhook may hold. The API server gives up on a webhook call after its
 * {@code timeoutSeconds} (at most 30 s, the chart sets 10 s), so an exchange that is still reading its request after
 * {@link #requestDeadline} serves nobody: its connection is closed and its thread freed.
 *
 * @param threads         exchanges served at once (TLS handshake, headers, body, validation, answer)
 * @param queued          exchanges waiting for a thread; beyond this a new connection is closed at once
 * @param requestDeadline longest time one exchange may take, from its first byte to its answer
 */
public record WebhookLimits(int threads, int queued, Duration requestDeadline) {
    /** 16 threads: eight stalled clients still leave half of them for the API server. */
    public static final WebhookLimits DEFAULT = new WebhookLimits(16, 64, Duration.ofSeconds(15));

    public WebhookLimits {
        Objects.requireNonNull(requestDeadline, "requestDeadline");
        if (threads < 1 || queued < 0 || requestDeadline.isNegative() || requestDeadline.isZero()) {
            throw new IllegalArgumentException("webhook limits need threads >= 1, queued >= 0 and a positive deadline: "
                    + this);
        }
    }
}

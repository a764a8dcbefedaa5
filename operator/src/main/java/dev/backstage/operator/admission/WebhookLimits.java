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
    /**
     * 128 threads, so that 64 stalled or reconnecting clients hold at most half of them and a review from the API
     * server finds a free thread at once (with 16 threads and a 15 s deadline, 64 stalled clients made a review wait
     * 56 s); a thread idle for {@link #IDLE_THREAD_LIFETIME} ends, so a quiet webhook keeps few. The deadline, 5 s,
     * is half the chart's webhook timeout (10 s): an exchange cut off there has not yet made the API server give up.
     */
    public static final WebhookLimits DEFAULT = new WebhookLimits(128, 64, Duration.ofSeconds(5));

    /** How long an idle webhook thread lives before it ends. */
    public static final Duration IDLE_THREAD_LIFETIME = Duration.ofSeconds(30);

    public WebhookLimits {
        Objects.requireNonNull(requestDeadline, "requestDeadline");
        if (threads < 1 || queued < 0 || requestDeadline.isNegative() || requestDeadline.isZero()) {
            throw new IllegalArgumentException(
                    "webhook limits need threads >= 1, queued >= 0 and a positive deadline: " + this);
        }
    }
}

package dev.backstage.runtime.rabbitmq;

import com.rabbitmq.client.Connection;
import java.io.IOException;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds out at start-up whether the broker has the delayed-message exchange plugin, by declaring the
 * provider's {@code x-delayed-message} exchange ({@code {p}.delayed}, {@code x-delayed-type=direct}).
 *
 * <p>Without the plugin the broker answers with 503 COMMAND_INVALID "unknown exchange type". On RabbitMQ
 * 3.x that is a <em>connection</em>-level error (checked on 3.10.8: the broker closes the whole
 * connection, not just the channel), so the probe runs on a throwaway connection of its own, without
 * automatic recovery, and never disturbs the provider's connections.
 */
final class DelayedExchangeDetector {
    private static final Logger log = LoggerFactory.getLogger(DelayedExchangeDetector.class);

    static final String EXCHANGE_TYPE = "x-delayed-message";

    private final RabbitMqConnections connections;

    DelayedExchangeDetector(RabbitMqConnections connections) {
        this.connections = connections;
    }

    /** True when the broker declared (or already had) the delayed-message exchange. */
    boolean detect(String exchange) {
        Connection probe = connections.openThrowaway("delayed-exchange-probe");
        try {
            new BrokerAdmin(probe)
                    .call(
                            "declare the delayed-message exchange " + exchange,
                            ch -> ch.exchangeDeclare(
                                    exchange, EXCHANGE_TYPE, true, false, Map.of("x-delayed-type", "direct")));
            log.info("rabbitmq: delayed-message exchange plugin present ({} declared)", exchange);
            return true;
        } catch (BrokerAdmin.BrokerCallException e) {
            if (e.replyCode() == BrokerAdmin.COMMAND_INVALID) {
                log.info("rabbitmq: no delayed-message exchange plugin ({})", e.getMessage());
                return false;
            }
            throw e;
        } finally {
            if (probe.isOpen()) {
                try {
                    probe.close(2_000);
                } catch (IOException | com.rabbitmq.client.AlreadyClosedException e) {
                    log.debug("closing the plugin probe connection failed: {}", e.toString());
                }
            }
        }
    }
}

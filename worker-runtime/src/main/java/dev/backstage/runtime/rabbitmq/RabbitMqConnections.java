package dev.backstage.runtime.rabbitmq;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.Recoverable;
import com.rabbitmq.client.RecoverableConnection;
import com.rabbitmq.client.RecoveryListener;
import com.rabbitmq.client.ShutdownSignalException;
import dev.backstage.runtime.core.NamedThreads;
import dev.backstage.runtime.spi.ConnectionFailure;
import dev.backstage.runtime.spi.ProviderHealth;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The provider's two AMQP connections, kept apart as RabbitMQ advises: one publishes (and runs short
 * administrative calls), the other consumes, so TCP back-pressure on publishers never delays the
 * consumers' acks. The consuming connection opens on first use; a CLI or the operator never needs it.
 *
 * <p>Both use amqp-client's automatic recovery: after a connection loss the client reconnects every
 * {@code recoveryInterval} forever and reopens the channels (with their prefetch and confirm mode).
 * Topology recovery is off on purpose: consumers resubscribe themselves ({@link SupervisedChannel}),
 * which also covers what automatic recovery does not (a channel closed by a channel error, a consumer
 * cancelled because its queue was deleted).
 */
final class RabbitMqConnections implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(RabbitMqConnections.class);

    private final ConnectionFactory factory;
    private final RabbitMqSettings settings;
    private final Tracked publishing;
    private Tracked consuming; // guarded by this
    private volatile boolean closed;

    private RabbitMqConnections(ConnectionFactory factory, RabbitMqSettings settings, Tracked publishing) {
        this.factory = factory;
        this.settings = settings;
        this.publishing = publishing;
    }

    static RabbitMqConnections open(RabbitMqSettings settings) {
        ConnectionFactory factory = new ConnectionFactory();
        try {
            factory.setUri(settings.url());
        } catch (Exception e) {
            throw new dev.backstage.runtime.spi.ConfigurationException(
                    "rabbitmq URL " + settings.redactedUrl() + " is not usable: " + e.getMessage(), e);
        }
        if (settings.secure()) {
            // setUri("amqps://…") alone trusts every certificate: replace that with the CA bundle, and check the name.
            factory.useSslProtocol(settings.tls().sslContext());
            factory.enableHostnameVerification();
        }
        factory.setAutomaticRecoveryEnabled(true);
        factory.setTopologyRecoveryEnabled(false);
        factory.setNetworkRecoveryInterval(settings.recoveryInterval().toMillis());
        factory.setRequestedHeartbeat(10); // notice a dead peer within ~20 s even when idle
        factory.setConnectionTimeout(5_000);
        factory.setChannelRpcTimeout(
                (int) Math.max(10_000, settings.confirmTimeout().toMillis()));
        factory.setThreadFactory(new NamedThreads("backstage-rabbitmq-io", true));
        RecoveryFailures failures = new RecoveryFailures();
        factory.setExceptionHandler(failures);
        return new RabbitMqConnections(factory, settings, connect(factory, settings, "publish", failures));
    }

    /**
     * Keeps why each connection's last recovery attempt failed (a password rotated on the broker, a certificate the
     * CA bundle no longer trusts): automatic recovery retries quietly otherwise, and {@link #health()} would only say
     * "down". Everything else is handled (and logged) as amqp-client's default handler does.
     */
    private static final class RecoveryFailures extends com.rabbitmq.client.impl.DefaultExceptionHandler {
        private final java.util.Map<Connection, Throwable> last = new java.util.concurrent.ConcurrentHashMap<>();

        @Override
        public void handleConnectionRecoveryException(Connection connection, Throwable exception) {
            last.put(connection, exception);
            super.handleConnectionRecoveryException(connection, exception);
        }

        java.util.Optional<Throwable> of(Connection connection) {
            return java.util.Optional.ofNullable(last.get(connection));
        }

        void recovered(Connection connection) {
            last.remove(connection);
        }
    }

    private static Tracked connect(
            ConnectionFactory factory, RabbitMqSettings settings, String role, RecoveryFailures failures) {
        String name = settings.connectionName() + "/" + role;
        try {
            Connection connection = settings.addresses().isEmpty()
                    ? factory.newConnection(name)
                    : factory.newConnection(settings.addresses(), name);
            Tracked tracked =
                    new Tracked(role, connection, settings.recoveryInterval().toMillis(), failures);
            connection.addShutdownListener(tracked::lost);
            ((RecoverableConnection) connection).addRecoveryListener(tracked);
            log.info("rabbitmq connection '{}' open to {}", name, settings.redactedTarget());
            return tracked;
        } catch (IOException | TimeoutException e) {
            throw new BrokerUnavailableException(
                    ConnectionFailure.label(e) + "cannot connect to RabbitMQ at " + settings.redactedTarget() + " ("
                            + role + " connection): " + describe(e),
                    e);
        }
    }

    /**
     * A short-lived connection without automatic recovery, for a call that may make the broker close the
     * whole connection (declaring an unknown exchange type is a connection-level 503 COMMAND_INVALID).
     */
    Connection openThrowaway(String role) {
        ConnectionFactory throwaway = factory.clone();
        throwaway.setAutomaticRecoveryEnabled(false);
        throwaway.setExceptionHandler(new com.rabbitmq.client.impl.ForgivingExceptionHandler() {
            @Override
            public void handleUnexpectedConnectionDriverException(Connection connection, Throwable cause) {
                // The broker may drop this connection on purpose (the plugin probe); that reset is expected.
                log.debug("rabbitmq {} connection ended: {}", role, cause.toString());
            }
        });
        try {
            String name = settings.connectionName() + "/" + role;
            return settings.addresses().isEmpty()
                    ? throwaway.newConnection(name)
                    : throwaway.newConnection(settings.addresses(), name);
        } catch (IOException | TimeoutException e) {
            throw new BrokerUnavailableException(
                    ConnectionFailure.label(e) + "cannot connect to RabbitMQ at " + settings.redactedTarget() + " ("
                            + role + " connection): " + describe(e),
                    e);
        }
    }

    String virtualHost() {
        return factory.getVirtualHost();
    }

    String username() {
        return factory.getUsername();
    }

    String password() {
        return factory.getPassword();
    }

    Connection publishing() {
        return publishing.connection;
    }

    synchronized Connection consuming() {
        if (closed) {
            throw new IllegalStateException("rabbitmq provider is closed");
        }
        if (consuming == null) {
            consuming = connect(factory, settings, "consume", (RecoveryFailures) factory.getExceptionHandler());
        }
        return consuming.connection;
    }

    ProviderHealth health() {
        List<String> problems = new ArrayList<>();
        publishing.problem().ifPresent(problems::add);
        Tracked consumer;
        synchronized (this) {
            consumer = consuming;
        }
        if (consumer != null) {
            consumer.problem().ifPresent(problems::add);
        }
        return problems.isEmpty() ? ProviderHealth.ok() : ProviderHealth.down(String.join("; ", problems));
    }

    @Override
    public void close() {
        closed = true;
        Tracked consumer;
        synchronized (this) {
            consumer = consuming;
        }
        if (consumer != null) {
            consumer.close();
        }
        publishing.close();
    }

    static String describe(Throwable e) {
        Throwable cause = e;
        while (cause.getCause() != null && cause.getMessage() == null) {
            cause = cause.getCause();
        }
        return cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
    }

    /** One connection and what the application knows about its state. */
    private static final class Tracked implements RecoveryListener {
        private final String role;
        private final Connection connection;
        private final long recoveryIntervalMs;
        private final RecoveryFailures failures;
        private volatile String lastLoss;

        Tracked(String role, Connection connection, long recoveryIntervalMs, RecoveryFailures failures) {
            this.role = role;
            this.connection = connection;
            this.recoveryIntervalMs = recoveryIntervalMs;
            this.failures = failures;
        }

        void lost(ShutdownSignalException cause) {
            if (cause.isInitiatedByApplication()) {
                return;
            }
            lastLoss = cause.getMessage();
            log.warn(
                    "rabbitmq {} connection lost ({}); automatic recovery retries every {} ms",
                    role,
                    lastLoss,
                    recoveryIntervalMs);
        }

        @Override
        public void handleRecovery(Recoverable recoverable) {
            log.info("rabbitmq {} connection recovered", role);
            lastLoss = null;
            failures.recovered(connection);
        }

        @Override
        public void handleRecoveryStarted(Recoverable recoverable) {
            log.info("rabbitmq {} connection: recovery attempt started", role);
        }

        java.util.Optional<String> problem() {
            if (connection.isOpen()) {
                return java.util.Optional.empty();
            }
            String why = lastLoss == null ? "closed" : lastLoss;
            java.util.Optional<Throwable> recovery = failures.of(connection);
            String reason = recovery.map(ConnectionFailure::label).orElse("");
            return java.util.Optional.of(reason + "rabbitmq " + role + " connection down (" + why
                    + "); automatic recovery retrying every " + recoveryIntervalMs + " ms"
                    + recovery.map(e -> ", last attempt: " + describe(e)).orElse(""));
        }

        void close() {
            if (!connection.isOpen()) {
                // Closing a recovering connection stops its recovery loop; abort() does so without waiting.
                connection.abort(2_000);
                return;
            }
            try {
                connection.close(2_000);
            } catch (IOException | com.rabbitmq.client.AlreadyClosedException e) {
                log.warn("closing rabbitmq {} connection failed: {}", role, describe(e));
            }
        }
    }
}

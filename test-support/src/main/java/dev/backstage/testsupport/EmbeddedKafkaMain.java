package dev.backstage.testsupport;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.Locale;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * The in-process test broker as a process of its own, for benchmarks that must not carry the broker's
 * classpath or CPU: prints {@code BOOTSTRAP <host:port>} once ready, runs until its standard input closes
 * (or it is killed), then prints its own produce request times ({@code BROKER ...} lines) and stops, deleting its
 * log directory.
 */
public final class EmbeddedKafkaMain {
    private EmbeddedKafkaMain() {}

    public static void main(String[] args) throws IOException {
        System.out.println("BOOTSTRAP " + EmbeddedKafka.shared().bootstrapServers());
        System.out.flush();
        while (System.in.read() >= 0) {
            // runs until stdin closes
        }
        printProduceTimes();
        System.exit(0);
    }

    /**
     * The broker's request metrics for Produce: total time from the request's arrival to its response being sent, and
     * its parts (queued for an I/O thread, handled locally, waiting on replicas, queued for the network thread,
     * sending). Kafka keeps them in reservoirs biased to the last ~5 minutes.
     */
    static void printProduceTimes() {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        for (String part : new String[] {
            "TotalTimeMs",
            "RequestQueueTimeMs",
            "LocalTimeMs",
            "RemoteTimeMs",
            "ResponseQueueTimeMs",
            "ResponseSendTimeMs"
        }) {
            try {
                ObjectName name = new ObjectName("kafka.network:type=RequestMetrics,name=" + part + ",request=Produce");
                System.out.printf(
                        Locale.ROOT,
                        "BROKER Produce %-20s p50 %6.2f ms, p99 %6.2f ms, max %6.2f ms (%,d requests)%n",
                        part,
                        (Double) server.getAttribute(name, "50thPercentile"),
                        (Double) server.getAttribute(name, "99thPercentile"),
                        (Double) server.getAttribute(name, "Max"),
                        (Long) server.getAttribute(name, "Count"));
            } catch (JMException e) {
                System.out.println("BROKER Produce " + part + ": not available (" + e + ")");
            }
        }
        System.out.flush();
    }
}

package dev.backstage.testsupport;

import java.io.IOException;

/**
 * The in-process test broker as a process of its own, for benchmarks that must not carry the broker's
 * classpath or CPU: prints {@code BOOTSTRAP <host:port>} once ready, runs until its standard input closes
 * (or it is killed), then stops and deletes its log directory.
 */
public final class EmbeddedKafkaMain {
    private EmbeddedKafkaMain() {}

    public static void main(String[] args) throws IOException {
        System.out.println("BOOTSTRAP " + EmbeddedKafka.shared().bootstrapServers());
        System.out.flush();
        while (System.in.read() >= 0) {
            // runs until stdin closes
        }
        System.exit(0);
    }
}

package dev.backstage.testsupport;

import java.io.IOException;

/**
 * Test clusters as a process of their own, for benchmarks that must not carry the brokers' classpath or CPU: starts
 * one {@link KafkaCluster} per size given ({@code 1 3} by default), prints {@code BOOTSTRAP_<size> <host:port,…>}
 * for each once ready, runs until its standard input closes (or it is killed), then stops them and deletes their data.
 */
public final class KafkaClusterMain {
    private KafkaClusterMain() {}

    public static void main(String[] args) throws IOException {
        String[] sizes = args.length == 0 ? new String[] {"1", "3"} : args;
        KafkaCluster[] clusters = new KafkaCluster[sizes.length];
        for (int i = 0; i < sizes.length; i++) {
            clusters[i] = KafkaCluster.start(Integer.parseInt(sizes[i]));
            System.out.println("BOOTSTRAP_" + sizes[i] + " " + clusters[i].bootstrapServers());
            System.out.flush();
        }
        while (System.in.read() >= 0) {
            // runs until stdin closes
        }
        for (KafkaCluster cluster : clusters) {
            cluster.close();
        }
        System.exit(0);
    }
}

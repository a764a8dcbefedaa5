package dev.backstage.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The machine's load average (1 min), from /proc/loadavg; other processes share these cores. */
final class Load {
    private Load() {}

    static double now() {
        try {
            return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }
}

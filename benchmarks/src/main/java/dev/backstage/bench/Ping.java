package dev.backstage.bench;

/** The latency benchmark's payload: when the job was sent ({@code System.nanoTime()} of this JVM). */
public record Ping(long sentNanos) {}

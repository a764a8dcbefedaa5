package dev.backstage.examples.orders;

/** An order to process; {@code card} "declined" makes the charge fail every time. */
public record Order(String orderId, long amountCents, String card) {}

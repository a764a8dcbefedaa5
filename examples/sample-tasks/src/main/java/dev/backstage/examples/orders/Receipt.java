package dev.backstage.examples.orders;

/** The receipt mailed after an order is processed. */
public record Receipt(String orderId, long amountCents) {}

package dev.backstage.examples.orders;

import dev.backstage.runtime.api.CronPayload;
import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.TaskBinder;
import dev.backstage.runtime.api.TaskModule;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;

/**
 * The sample task module: {@code processOrder} charges the card and chains {@code sendReceipt}, which is
 * enqueued before {@code processOrder} is acked; {@code dailyReport} is a cron task. A "declined" card always fails (it ends in the dead-letter
 * queue after its retries); a "flaky" card fails on its first delivery only (a retry fixes it).
 *
 * <p>Found by the container main through {@code META-INF/services/dev.backstage.runtime.api.TaskModule}.
 */
public final class OrderTasks implements TaskModule {
    /** Milliseconds each task "works" (env {@code BACKSTAGE_SAMPLE_WORK_MS}); by default 1–3 ms. */
    static final String WORK_MS_ENV = "BACKSTAGE_SAMPLE_WORK_MS";

    private final Consumer<String> receiptSent;
    private final Integer workMs = parse(System.getenv(WORK_MS_ENV));

    public OrderTasks() {
        this(orderId -> {});
    }

    /** @param receiptSent called with the order id each time a receipt goes out (the demo counts them) */
    public OrderTasks(Consumer<String> receiptSent) {
        this.receiptSent = receiptSent;
    }

    @Override
    public void register(TaskBinder binder) {
        binder.task("processOrder", Order.class, (ctx, order) -> {
            charge(order, ctx.deliveryCount());
            return Next.task("sendReceipt", new Receipt(order.orderId(), order.amountCents()));
        });
        binder.task("sendReceipt", Receipt.class, (ctx, receipt) -> {
            // ctx.jobId() is the idempotency key a real mailer would pass on: delivery is at-least-once.
            simulateWork();
            receiptSent.accept(receipt.orderId());
            return Next.done();
        });
        // Fired by a cron schedule (spec.schedules of the example topology): the payload is the seeds' envelope.
        binder.task("dailyReport", CronPayload.class, (ctx, cron) -> {
            simulateWork();
            return Next.done();
        });
    }

    private static Integer parse(String value) {
        return value == null || value.isBlank() ? null : Integer.valueOf(value.trim());
    }

    private void charge(Order order, int deliveryCount) throws PaymentDeclinedException {
        simulateWork();
        if ("declined".equals(order.card())) {
            throw new PaymentDeclinedException("card declined for order " + order.orderId());
        }
        if ("flaky".equals(order.card()) && deliveryCount == 1) {
            throw new PaymentDeclinedException("payment gateway timed out for order " + order.orderId());
        }
    }

    private void simulateWork() {
        try {
            Thread.sleep(workMs != null ? workMs : ThreadLocalRandom.current().nextInt(1, 4));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A business failure: retried by policy, dead-lettered when retries run out. */
    public static final class PaymentDeclinedException extends Exception {
        public PaymentDeclinedException(String message) {
            super(message);
        }
    }
}

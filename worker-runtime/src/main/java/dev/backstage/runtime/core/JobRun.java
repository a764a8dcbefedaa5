package dev.backstage.runtime.core;

import dev.backstage.runtime.api.Next;
import dev.backstage.runtime.api.TaskOptions;
import dev.backstage.runtime.spi.Delivery;
import dev.backstage.runtime.spi.Payload;

/**
 * One job delivery while it runs, as {@link JobOutcomes} sees it: the delivery, the context its handler gets, and
 * what preparing and running it found out. Written by the handler thread before the settlement is claimed and read
 * after it (the claim's compare-and-set orders them).
 */
final class JobRun {
    final Delivery delivery;
    final DeliveryContext context;
    /** The payload in the form the provider holds it; read first of all ({@link JobOutcomes#enter}). */
    Payload payload;
    /** The payload as the provider bound it in its one pass over the record, or {@link JsonTokens#NOT_BOUND}. */
    Object bound = JsonTokens.NOT_BOUND;

    RegisteredTask<?> task;
    TaskOptions options = TaskOptions.defaults();
    /** What the handler returned. */
    Next next;

    JobRun(Delivery delivery) {
        this.delivery = delivery;
        this.context = new DeliveryContext(delivery);
    }
}

package dev.backstage.runtime.rabbitmq;

import dev.backstage.runtime.spi.BackstageException;

/**
 * The channel that carried a delivery closed (connection loss, channel error) before it was settled. The
 * broker has already put the message back for redelivery, so nothing may be published or acked for it.
 */
public final class StaleDeliveryException extends BackstageException {
    public StaleDeliveryException(String message) {
        super(message);
    }
}

package dev.backstage.runtime.rabbitmq;

import dev.backstage.runtime.spi.BackstageException;

/**
 * The broker did not confirm a publish: it refused it (basic.nack), returned it as unroutable, the
 * channel closed first, or no confirm came within the timeout. Whatever depended on the publish (an
 * ack of the original delivery) was not done.
 */
public final class PublishNotConfirmedException extends BackstageException {
    public PublishNotConfirmedException(String message) {
        super(message);
    }

    public PublishNotConfirmedException(String message, Throwable cause) {
        super(message, cause);
    }
}

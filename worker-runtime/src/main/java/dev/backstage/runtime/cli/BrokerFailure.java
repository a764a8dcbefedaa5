package dev.backstage.runtime.cli;

/** The broker could not be reached or refused a request; the message names it (credentials masked). */
final class BrokerFailure extends RuntimeException {
    BrokerFailure(String message, Throwable cause) {
        super(message, cause);
    }
}

package dev.backstage.bench;

/** One way of consuming the same preloaded jobs; {@link #run} does its set-up outside the timed window. */
interface Side {
    String name();

    TimedWindow.Measured run(int jobs) throws Exception;
}

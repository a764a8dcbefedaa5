package dev.backstage.operator.scaling.sim;

import java.util.function.DoubleUnaryOperator;

/**
 * Job arrivals over time: a rate in jobs per second as a function of seconds since the start. Arrivals are
 * the integral of the rate, released deterministically (no randomness: every run of a trace is identical).
 *
 * @param name            short name for the table
 * @param description     what it models, printed above the table
 * @param durationSeconds how long jobs arrive; the simulation then runs an idle tail
 * @param ratePerSecond   arrival rate at time t (seconds)
 */
record ArrivalTrace(String name, String description, double durationSeconds, DoubleUnaryOperator ratePerSecond) {

    double rateAt(double seconds) {
        return seconds < 0 || seconds >= durationSeconds ? 0 : ratePerSecond.applyAsDouble(seconds);
    }

    static ArrivalTrace steady(double rate, double seconds) {
        return new ArrivalTrace(
                "steady",
                String.format("%.0f jobs/s for %.0f min, starting from an idle pool", rate, seconds / 60),
                seconds,
                t -> rate);
    }

    static ArrivalTrace stepBurst(double base, double burst, double burstStart, double burstSeconds, double seconds) {
        return new ArrivalTrace(
                "step-burst",
                String.format(
                        "%.0f jobs/s, a step to %.0f jobs/s at %.0f s for %.0f s, back to %.0f jobs/s until %.0f s",
                        base, burst, burstStart, burstSeconds, base, seconds),
                seconds,
                t -> t >= burstStart && t < burstStart + burstSeconds ? burst : base);
    }

    static ArrivalTrace sawtooth(double peak, double rampSeconds, double idleSeconds, int cycles) {
        double cycle = rampSeconds + idleSeconds;
        return new ArrivalTrace(
                "sawtooth",
                String.format(
                        "%d cycles: ramp 0 to %.0f jobs/s over %.0f s, then nothing for %.0f s",
                        cycles, peak, rampSeconds, idleSeconds),
                cycle * cycles,
                t -> {
                    double inCycle = t % cycle;
                    return inCycle < rampSeconds ? peak * inCycle / rampSeconds : 0;
                });
    }

    static ArrivalTrace diurnal(double low, double high, double periodSeconds, int cycles) {
        double mean = (low + high) / 2;
        double amplitude = (high - low) / 2;
        return new ArrivalTrace(
                "diurnal",
                String.format(
                        "%d 'days' of %.0f min: a smooth wave between %.0f and %.0f jobs/s",
                        cycles, periodSeconds / 60, low, high),
                periodSeconds * cycles,
                t -> mean - amplitude * Math.cos(2 * Math.PI * t / periodSeconds));
    }

    static ArrivalTrace ramp(String name, double from, double to, double rampSeconds, double holdSeconds) {
        return new ArrivalTrace(
                name,
                String.format("ramp %.0f to %.0f jobs/s over %.0f s, hold %.0f s", from, to, rampSeconds, holdSeconds),
                rampSeconds + holdSeconds,
                t -> t < rampSeconds ? from + (to - from) * t / rampSeconds : to);
    }

    static ArrivalTrace constant(String name, double rate, double seconds, String description) {
        return new ArrivalTrace(name, description, seconds, t -> rate);
    }

    /** {@code rate} jobs/s for {@code onSeconds}, then nothing for {@code offSeconds}, {@code cycles} times. */
    static ArrivalTrace squareWave(double rate, double onSeconds, double offSeconds, int cycles) {
        double cycle = onSeconds + offSeconds;
        return new ArrivalTrace(
                "square-wave",
                String.format(
                        "%d bursts: %.0f jobs/s for %.0f s, then nothing for %.0f s",
                        cycles, rate, onSeconds, offSeconds),
                cycle * cycles,
                t -> t % cycle < onSeconds ? rate : 0);
    }

    static ArrivalTrace diurnal(String name, double low, double high, double periodSeconds, int cycles) {
        ArrivalTrace wave = diurnal(low, high, periodSeconds, cycles);
        return new ArrivalTrace(name, wave.description(), wave.durationSeconds(), wave.ratePerSecond());
    }

    static ArrivalTrace stepBurst(
            String name, double base, double burst, double burstStart, double burstSeconds, double seconds) {
        ArrivalTrace step = stepBurst(base, burst, burstStart, burstSeconds, seconds);
        return new ArrivalTrace(name, step.description(), seconds, step.ratePerSecond());
    }
}

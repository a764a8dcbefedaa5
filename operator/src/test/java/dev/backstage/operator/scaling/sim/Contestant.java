package dev.backstage.operator.scaling.sim;

import java.util.function.IntFunction;

/**
 * One autoscaler setup in a scenario.
 *
 * @param label        row label
 * @param role         whether it is ours, the baseline the goals are checked against, or a variant shown
 * @param graceSeconds the Deployment's terminationGracePeriodSeconds
 * @param factory      builds the autoscaler for a phase index (0..phases-1; shifts its loops' timing)
 */
record Contestant(String label, Role role, double graceSeconds, IntFunction<Autoscaler> factory) {
    enum Role {
        OURS,
        BASELINE,
        VARIANT,
        /** KEDA + HPA at another target: ours should be cheaper or faster than every one (Pareto). */
        KEDA_SWEEP
    }
}

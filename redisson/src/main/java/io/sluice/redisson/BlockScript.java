package io.sluice.redisson;

import io.sluice.spi.Entry;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;

import java.util.ArrayList;
import java.util.List;

/**
 * An algorithm's decision script inside {@code block.lua}, for the requests of rules with a {@code block}: the
 * block is checked before the decision and started by a rejection, in the same call (rules without a block run their
 * algorithm's script alone). It takes the algorithm's keys and the block key, the algorithm's arguments and three of
 * its own, and answers the algorithm's answer and the block's time left. Thread-safe (immutable).
 */
final class BlockScript extends DecisionScript {
    /** The block argument of a request that only passes through (a refund), and of a peek, which only reads the block. */
    static final String PASS = "0";
    static final String READ = "-1";
    /** The arguments the block adds: now and the block (batch.lua adds a run's length after them). */
    private static final int OWN_ARGUMENTS = 2;

    private final DecisionScript rate;
    private final boolean callerTime;

    BlockScript(DecisionScript rate, boolean callerTime) {
        super(text(rate), rate.argumentCount() + OWN_ARGUMENTS, rate.keyCount() + 1, rate.answerSize() + 1,
                rate.uniqueArgument(), true);
        this.rate = rate;
        this.callerTime = callerTime;
    }

    private static String text(DecisionScript rate) {
        return "local RATE_KEYS = " + rate.keyCount() + "\nlocal RATE_ARGS = " + rate.argumentCount()
                + "\nlocal UNIQUE = " + rate.uniqueArgument() + "\nlocal ANSWER = " + rate.answerSize()
                + "\nlocal function rate(KEYS, ARGV)\n" + rate.one().text() + "\nend\n" + LuaScript.text("shared/block.lua");
    }

    @Override
    List<Object> keys(RateRequest r) {
        List<Object> keys = new ArrayList<>(rate.keys(r));
        keys.add(RateKeys.block(r.key()));
        return keys;
    }

    @Override
    String[] arguments(RateRequest r, String mode, String now) {
        return arguments(r, mode, now, mode.equals(CONSUME) ? Long.toString(r.blockMillis()) : PASS);
    }

    /** A refund passes the block by, to the permits' own place in the algorithm's state. */
    @Override
    String[] refundArguments(RateRequest r, Entry entry, String now) {
        return withOwn(rate.refundArguments(r, entry, now), now, PASS);
    }

    /** A peek's arguments: {@code r} as {@code RateUsage.peekOf} has it, reading the block when the rule has one. */
    String[] peekArguments(RateRequest r, String now) {
        return arguments(r, CONSUME, now, r.blocks() ? READ : PASS);
    }

    private String[] arguments(RateRequest r, String mode, String now, String block) {
        return withOwn(rate.arguments(r, mode, now), now, block);
    }

    /** The algorithm's arguments {@code own}, then the block's. */
    private String[] withOwn(String[] own, String now, String block) {
        String[] all = new String[own.length + OWN_ARGUMENTS];
        System.arraycopy(own, 0, all, 0, own.length);
        all[own.length] = time(callerTime, now);
        all[own.length + 1] = block;
        return all;
    }

    @Override
    RateOutcome outcome(RateRequest r, List<Object> answers, int at) {
        return rate.outcome(r, answers, at);
    }

    /** The block's time left in the answer at {@code at}. */
    long blockedMillis(List<Object> answers, int at) {
        return number(answers, at + rate.answerSize());
    }
}

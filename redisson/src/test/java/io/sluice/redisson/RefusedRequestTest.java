package io.sluice.redisson;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which script errors one request's arguments caused (that request's rejection) and which say something about Redis
 * (a backend failure): Redis 6 and 7 spell them differently, and Redis 6 wraps every error raised in a script.
 */
class RefusedRequestTest {
    @ParameterizedTest
    @ValueSource(strings = {
            "ERR value is not an integer or out of range",
            "ERR value is not an integer or out of range script: 1d83, on @user_script:46.",
            "ERR Error running script (call to f_1d83): @user_script:46: ERR value is not an integer or out of range",
            "ERR user_script:12: attempt to compare nil with number script: 1d83, on @user_script:12.",
            "user_script:12: attempt to perform arithmetic on a nil value",
            "ERR invalid expire time in 'set' command"})
    void anArgumentRedisCannotTakeIsTheRequests(String error) {
        assertThat(DecisionCalls.causedByRequest(error)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "OOM command not allowed when used memory > 'maxmemory'.",
            "ERR Error running script (call to f_1d83): @user_script:46: @user_script: 46: -OOM command not allowed when used memory > 'maxmemory'.",
            "BUSY Redis is busy running a script.",
            "READONLY You can't write against a read only replica.",
            "LOADING Redis is loading the dataset in memory",
            "NOPERM this user has no permissions to run the 'set' command",
            "ERR The user executing the script can't run this command or subcommand script: 1d83",
            "WRONGTYPE Operation against a key holding the wrong kind of value",
            "CLUSTERDOWN The cluster is down",
            "NOSCRIPT No matching script. Please use EVAL."})
    void aConditionOfRedisIsABackendFailure(String error) {
        assertThat(DecisionCalls.causedByRequest(error)).isFalse();
    }
}

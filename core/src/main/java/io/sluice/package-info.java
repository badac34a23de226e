/**
 * The engine: {@link io.sluice.Sluice} decides requests under the rules of a rules file and answers with an
 * {@link io.sluice.Admission} of {@link io.sluice.Decision}s; rejections are values until a boundary turns
 * them into a {@link io.sluice.LimitExceededException}. The public types a user needs are listed in the
 * overview of this documentation.
 */
package io.sluice;

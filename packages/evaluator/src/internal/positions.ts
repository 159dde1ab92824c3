/** Position key of a (row, column) point: `row * 1e8 + column`, so both compare in one number. */
export const POSITION_SCALE = 1e8;

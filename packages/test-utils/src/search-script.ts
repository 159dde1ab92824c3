/**
 * A scripted search on the example incident leasekv-77 (test support only): it lists files,
 * greps, reads another file, `cat -n`s the top of the causal file `lease/lessor.go` at turn 4 (the
 * file, not its causal block at lines 147-148), counts its lines, `sed -n`s the causal block at
 * turn 6, then writes {@link LEASEKV_WRONG_DIAGNOSIS} (turn 7) and submits (turn 8).
 */
export const LEASEKV_SEARCH_COMMANDS: readonly string[] = [
  "ls -R",
  "grep -rn 'func New' --include=*.go . | head -5",
  "cat -n server/idgen.go | head -20",
  "cat -n lease/lessor.go | head -40",
  "wc -l lease/lessor.go",
  "sed -n 145,149p lease/lessor.go",
];

/** A wrong diagnosis of leasekv-77 (a block of a file that holds no gold code), as a write command. */
export const LEASEKV_WRONG_DIAGNOSIS = `cat > /output/diagnosis.json <<'EOF'
{"format": "distdebug.diagnosis/1", "incidentId": "leasekv-77", "blocks": [
  {"path": "server/idgen.go", "startLine": 1, "endLine": 3}]}
EOF`;

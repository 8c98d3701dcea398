// Runs a DigitalJS export headless under Node:
//   node digitaljs.js RULE.digitaljs.json BITS...
// Each BITS is one neighbourhood: character i is input i (channel c of
// neighbour n is i = n*C + c). Prints the next state's channels c0 c1 ...
// for each, as 0s and 1s.
const fs = require('fs');
const digitaljs = require('digitaljs');
const { Vector3vl } = require('3vl'); // DigitalJS's signal type, installed with it

const circuit = new digitaljs.HeadlessCircuit(JSON.parse(fs.readFileSync(process.argv[2], 'utf8')));
const byOrder = (a, b) => a.get('order') - b.get('order');
const inputs = circuit.getInputCells(); // only the inputs the rule reads
const outputs = circuit.getOutputCells().sort(byOrder);
for (const bits of process.argv.slice(3)) {
  for (const button of inputs) button.setInput(Vector3vl.fromBool(bits[button.get('order')] === '1'));
  while (circuit.hasPendingEvents) circuit.updateGates(); // until the signals settle
  console.log(outputs.map(lamp => lamp.getOutput().toBin()).join(''));
}
circuit.shutdown();

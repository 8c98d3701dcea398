package circuit

import (
	"fmt"
	"slices"
)

// KeepChannels returns the cellular-automaton rule nl with every channel
// that cannot influence the channels in keep, however many steps it runs,
// frozen: that channel's output becomes the cell's own value of it (a
// wire, no gate), and the gates only it needed go. Run from the same
// state, the result and nl give the kept channels the same values step
// after step, synchronously or not: a kept channel reads only channels
// that influence it, which are kept too. The frozen channels keep their
// initial values.
//
// This is how a trained rule is pruned to what its visible channels need
// (the paper's "after pruning" gate counts); Simplify, which keeps every
// output's function, cannot do it. It also returns every channel kept
// (those in keep and those that influence them), in order, and an error if
// nl is not a cellular-automaton rule or keep names no channel of it.
func KeepChannels(nl *Netlist, keep []int) (*Netlist, []int, error) {
	nl.mustValidate("KeepChannels")
	if !nl.IsCA() {
		return nil, nil, fmt.Errorf("circuit: a netlist of %d inputs and %d outputs is no cellular-automaton rule (9 inputs per output)", nl.NumInputs, len(nl.Outputs))
	}
	c := nl.Channels()
	if len(keep) == 0 {
		return nil, nil, fmt.Errorf("circuit: no channel to keep")
	}
	reads := channelReads(nl)
	kept := make([]bool, c)
	todo := []int{}
	for _, k := range keep {
		if k < 0 || k >= c {
			return nil, nil, fmt.Errorf("circuit: channel %d to keep: the rule has channels 0 to %d", k, c-1)
		}
		todo = append(todo, k)
	}
	for len(todo) > 0 {
		k := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if kept[k] {
			continue
		}
		kept[k] = true
		todo = append(todo, reads[k]...)
	}
	out := nl.Clone()
	var all []int
	for k, kk := range kept {
		if kk {
			all = append(all, k)
		} else {
			out.Outputs[k] = int32(4*c + k) // the cell itself, channel k
		}
	}
	return RemoveDead(out), all, nil
}

// channelReads returns, for each channel, the channels its output depends
// on (functionally where the output depends on at most maxSupport inputs,
// else through the inputs it reads).
func channelReads(nl *Netlist) [][]int {
	c := nl.Channels()
	cones, sups := conesOf(nl), supports(nl)
	reads := make([][]int, c)
	for k, o := range nl.Outputs {
		var in []int32
		switch {
		case !cones[o].big:
			in = cones[o].support
		case !supBig(sups[o]):
			in = sups[o]
		default:
			for d := range c {
				reads[k] = append(reads[k], d)
			}
			continue
		}
		for _, v := range in {
			reads[k] = append(reads[k], int(v)%c)
		}
		slices.Sort(reads[k])
		reads[k] = slices.Compact(reads[k])
	}
	return reads
}

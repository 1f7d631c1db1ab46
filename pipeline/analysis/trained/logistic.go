package trained

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/optimize"
)

// vector is a conversation as a model's input: the numbers of the terms it
// has (sorted, each once), each of value 1.
type vector []int32

// logit is a model's log-odds for x.
func logit(w []float64, bias float64, x vector) float64 {
	z := bias
	for _, t := range x {
		z += w[t]
	}
	return z
}

// logistic is the training problem of one label: weighted logistic loss
// with an L2 penalty on the weights (not the bias), minimised by L-BFGS
// (gonum's optimize). Positives and negatives weigh alike in total, so a
// rare label is not learned as "never".
type logistic struct {
	x       []vector
	y       []bool
	weight  []float64 // each example's class weight
	lambda  float64
	dim     int // terms; the bias is the last coordinate
	lastX   []float64
	lastF   float64
	lastGrd []float64 // the gradient at lastX, rewritten in place
}

func newLogistic(x []vector, y []bool, lambda float64, dim int) *logistic {
	pos := 0
	for _, v := range y {
		if v {
			pos++
		}
	}
	l := &logistic{x: x, y: y, weight: make([]float64, len(y)), lambda: lambda, dim: dim, lastGrd: make([]float64, dim+1)}
	for i, v := range y {
		if v {
			l.weight[i] = float64(len(y)) / float64(2*pos)
		} else {
			l.weight[i] = float64(len(y)) / float64(2*(len(y)-pos))
		}
	}
	return l
}

// evaluate computes the loss and its gradient at w once for both of
// L-BFGS's calls at a point.
func (l *logistic) evaluate(w []float64) {
	if l.lastX != nil && slices.Equal(l.lastX, w) {
		return
	}
	grad := l.lastGrd
	clear(grad)
	loss := 0.0
	for i, x := range l.x {
		z := logit(w, w[l.dim], x)
		sign := -1.0
		if l.y[i] {
			sign = 1
		}
		loss += l.weight[i] * logOnePlusExp(-sign*z)
		// d/dz of log(1+exp(-s z)) is sigmoid(z) - [s = 1].
		g := sigmoid(z)
		if l.y[i] {
			g--
		}
		g *= l.weight[i]
		for _, t := range x {
			grad[t] += g
		}
		grad[l.dim] += g
	}
	n := float64(len(l.x))
	loss /= n
	for j := range l.dim {
		grad[j] = grad[j]/n + l.lambda*w[j]
		loss += l.lambda / 2 * w[j] * w[j]
	}
	grad[l.dim] /= n
	l.lastX, l.lastF = append(l.lastX[:0], w...), loss
}

// logOnePlusExp is log(1+exp(v)) without overflow.
func logOnePlusExp(v float64) float64 {
	if v > 0 {
		return v + math.Log1p(math.Exp(-v))
	}
	return math.Log1p(math.Exp(v))
}

// fit minimises the loss from start (the weights then the bias; zero
// when nil); it returns the weights and the bias, one slice of both.
// The loss is strictly convex: any start ends at the same minimum, and a
// start near it (the solution of a nearby problem) takes fewer steps.
func (l *logistic) fit(start []float64) ([]float64, float64, error) {
	initial := make([]float64, l.dim+1)
	copy(initial, start)
	problem := optimize.Problem{
		Func: func(w []float64) float64 { l.evaluate(w); return l.lastF },
		Grad: func(grad, w []float64) { l.evaluate(w); copy(grad, l.lastGrd) },
	}
	settings := &optimize.Settings{
		GradientThreshold: 1e-6,
		MajorIterations:   maxIterations,
		Converger:         &optimize.FunctionConverge{Absolute: 1e-9, Relative: 1e-7, Iterations: 20},
	}
	res, err := optimize.Minimize(problem, initial, settings, &optimize.LBFGS{})
	if err != nil && res == nil {
		return nil, 0, fmt.Errorf("training did not converge: %w", err)
	}
	// Stopping at the iteration limit still leaves a usable model: the
	// loss only falls.
	return res.X[:l.dim], res.X[l.dim], nil
}

// maxIterations bounds one fit's L-BFGS iterations.
const maxIterations = 400

// probability is the fitted model's output for x.
func probability(w []float64, bias float64, x vector) float64 { return sigmoid(logit(w, bias, x)) }

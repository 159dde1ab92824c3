module go.leasekv.dev/leasekv

go 1.22

require go.uber.org/zap v1.27.0

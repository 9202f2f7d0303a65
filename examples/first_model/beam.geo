// A first model of one's own: a steel cantilever beam, 100 x 20 x 5 mm (SI units: m), clamped at x = 0, whose free end
// may hit a stop under it. 20 x 4 x 2 twenty-node hexahedra (C3D20). Run: gmsh -3 beam.geo -o beam.msh
// The physical groups become vicms node sets (and the volume an element set):
//   clamp   the face x = 0                         -model_clamp clamp
//   contact the two lower corners of the free end  -cms_contact_set contact
//   tip     the same two nodes, loaded             -cms_forces tip:z:0.5 (0.5 N per node)
// Gmsh numbers the nodes of the geometry's points first, by point tag: Point(1), the lower corner of the free end at
// y = 0, is node 1 (the output -cms_outputs 1:z).
L = 0.1;
W = 0.02;
T = 0.005;
Point(1) = {L, 0, 0};
Point(2) = {L, W, 0};
Point(3) = {0, W, 0};
Point(4) = {0, 0, 0};
Line(1) = {1, 2};
Line(2) = {2, 3};
Line(3) = {3, 4};
Line(4) = {4, 1};
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};
Transfinite Curve{1, 3} = 5;   // 4 cells across the width
Transfinite Curve{2, 4} = 21;  // 20 cells along the length
Transfinite Surface{1};
Recombine Surface{1};
out[] = Extrude {0, 0, T} { Surface{1}; Layers{2}; Recombine; };  // 2 cells through the thickness
// out[0] is the top face, out[1] the volume, out[2..5] the side faces extruded from lines 1..4 (out[4] from line 3, x = 0)
Physical Volume("beam") = {out[1]};
Physical Surface("clamp") = {out[4]};
Physical Point("contact") = {1, 2};
Physical Point("tip") = {1, 2};
Mesh.ElementOrder = 2;
Mesh.SecondOrderIncomplete = 1;  // 20-node hexahedra, not 27
